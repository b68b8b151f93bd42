"""Ordinary PyTorch code as a new user writes it: views, a module's state_dict round trip,
CrossEntropyLoss, autocast's query functions, the profiler's schedule, integer dtypes. Run as
`python3 new_user_script.py torch` it prints PyTorch's answers (new_user_script.expected holds
them, from PyTorch 1.13); test_new_user_script.py runs it with `ember` and compares every line."""
import importlib
import sys

torch = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "ember")
nn = torch.nn

# Views share storage; the version counter sees writes through any of them.
x = torch.arange(12.).reshape(3, 4)
v = x.T[1:].unflatten(0, (1, 3))
print(v.shape, v.stride(), v._is_view(), v._base is x, x.storage().data_ptr() == v.storage().data_ptr())
v.mul_(2)
print(x._version, x[1].tolist(), torch.tensor_split(x, 3, dim=1)[2].flatten().tolist())
print([t.shape for t in torch.broadcast_tensors(x[:1], torch.zeros(2, 1, 1))], x.movedim(0, 1).is_contiguous())

# A module's state_dict round trip, into a fresh model.
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
clone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
state = model.state_dict()
print(list(state), [tuple(t.shape) for t in state.values()])
result = clone.load_state_dict(state)
print(result, all(torch.equal(a, b) for a, b in zip(model.parameters(), clone.parameters())))
print(clone[2], len(clone[:2]), [name for name, _ in clone.named_children()])

# A classification loss and one optimizer step.
inputs, targets = torch.randn(5, 4), torch.tensor([0, 2, 1, 2, 0])
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss = loss_fn(model(inputs), targets)
loss.backward()
optimizer.step()
print(f"{loss.item():.4f}", loss.grad_fn.name(), f"{loss_fn(model(inputs), targets).item():.4f}")

# autocast's own names.
print(torch.is_autocast_enabled(), torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(inputs)
    print(torch.is_autocast_cpu_enabled(), out.dtype, torch.get_autocast_cpu_dtype())
print(torch.is_autocast_cpu_enabled(), [round(p, 2) for p in out.float().softmax(1).sum(1).tolist()])

# The profiler's schedule: wait one step, warm up one, record two, and hand each trace over.
def on_trace_ready(prof):
    counts = {event.key: event.count for event in prof.key_averages()}
    print("trace ready:", counts.get("aten::addmm"), counts.get("aten::relu"), counts.get("aten::mm"))


schedule = torch.profiler.schedule(wait=1, warmup=1, active=2)
with torch.profiler.profile(schedule=schedule, on_trace_ready=on_trace_ready) as prof:
    for step in range(4):
        model(inputs).sum().backward() if step % 2 else model(inputs)
        prof.step()

# Integer dtypes: wrap-around, promotion, floor division and the remainder's sign.
small = torch.tensor([100, -7, 127], dtype=torch.int8)
print(small + small, (small // 2).tolist(), (small % 3).tolist(), (small * 2.5).dtype)
print(torch.promote_types(torch.uint8, torch.int8), (small + torch.tensor(1000)).dtype, small.sum().dtype)
