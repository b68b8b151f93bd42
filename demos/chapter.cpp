// The chapter's script (debug.py), line for line in ember's C++ API: read the two side by side.
// Every value it prints is computed here by the engine: the shapes in the error, the booleans,
// the list, the dtype, the inference-mode error's first sentence and the profiler's top two ops.
// Its output equals the chapter's printed output byte for byte (demos/chapter_expected_output.txt,
// checked by a CTest test).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {

// Python's repr of a list of booleans and of a list of strings.
std::string python_list(const std::vector<bool>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += std::string(i ? ", " : "") + (values[i] ? "True" : "False");
  return out + "]";
}
std::string python_list(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", '" : "'") + values[i] + "'";
  return out + "]";
}
const char* python_bool(bool value) { return value ? "True" : "False"; }

}  // namespace

int chapter_script() {
  manual_seed(0);

  std::cout << "—— 读懂形状报错 ——\n";
  try {
    matmul(randn({4, 8}), randn({16, 2}));
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
  }
  std::cout << "报错里的两个形状就是答案：(4,8) 和 (16,2)，8 ≠ 16。矩阵乘错位几乎都是少了一次 transpose 或者 batch "
               "维没对齐\n";

  std::cout << "\n—— 坑一：把带梯度的张量攒进 list ——\n";
  nn::Linear model(16, 16);
  Tensor x = randn({8, 16});
  std::vector<Tensor> bad, good;
  for (int i = 0; i < 3; ++i) {
    Tensor out = model(x).sum();
    bad.push_back(out);            // 每一个都拖着一整张计算图
    good.push_back(out.detach());  // 或者 .item()
  }
  std::vector<bool> bad_requires_grad, good_requires_grad;
  for (const Tensor& t : bad) bad_requires_grad.push_back(t.requires_grad());
  for (const Tensor& t : good) good_requires_grad.push_back(t.requires_grad());
  std::cout << "攒进去的张量还连着图吗： " << python_list(bad_requires_grad) << " -> "
            << python_list(good_requires_grad) << "\n";
  std::cout << "日志里 running_loss += loss 而不是 loss.item()，就是这样把显存吃光的\n";

  std::cout << "\n—— 坑二：忘了切 eval ——\n";
  nn::Sequential net{nn::Linear(4, 4), nn::Dropout(0.5)};
  Tensor z = randn({2, 4});
  net->train();
  std::cout << "train 模式下两次推理不同： " << python_bool(!allclose(net(z), net(z))) << "\n";
  net->eval();
  std::cout << "eval 模式下才稳定：    " << python_bool(allclose(net(z), net(z))) << "\n";

  std::cout << "\n—— 坑三：原地操作和视图 ——\n";
  Tensor t = arange(6.).reshape({2, 3});
  Tensor row = t[0];  // 视图
  row += 100;
  std::cout << "改视图会改到原张量： " << t[0].tolist_str() << "\n";
  std::cout << "要独立的一份就 .clone()；传参数给函数时尤其注意，调用方的张量可能被就地改掉\n";

  std::cout << "\n—— no_grad 与 inference_mode ——\n";
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  Tensor a, b;
  {
    NoGradGuard no_grad;
    a = big(xb);
  }
  {
    InferenceMode inference_mode;
    b = big(xb);
  }
  std::cout << "no_grad 的结果能不能再进计算图： " << python_bool(!(a * 1).requires_grad() && !a.requires_grad())
            << "\n";
  try {
    (b * ones({1}, Options().requires_grad())).sum().backward();
  } catch (const Error& e) {
    const std::string message = e.what();
    std::cout << "inference_mode 的结果不行： " << message.substr(0, message.find('.')) << "\n";
  }
  std::cout << "两者都不建图；inference_mode 更彻底（连版本计数都不记，推理更快），代价是产出的张量不能再参与求导\n";
  std::cout << "只想临时关梯度、之后还要接着训练，用 no_grad；纯推理服务用 inference_mode\n";

  std::cout << "\n—— 自动混合精度 ——\n";
  Tensor out;
  {
    AutocastGuard autocast(DeviceType::CPU, kBFloat16);
    out = big(xb);
  }
  std::cout << "autocast 里矩阵乘的输出 dtype： " << to_string(out.dtype())
            << " ；归一化、softmax 这类敏感算子仍然留在 fp32\n";
  std::cout << "GPU 上要配 GradScaler（fp16）或者直接用 bf16（不用 scaler）；CPU 上没有专门的矩阵指令时反而更慢\n";

  std::cout << "\n—— profiler：先看是谁最慢 ——\n";
  // 量之前先锁住变量: a profile is wall-clock time, so one taken while other programs held the CPU
  // measures them too (profiler/machine_load.h). It is taken again, at most three times and each
  // from the same state (no .grad yet), and stderr says when none ran undisturbed.
  std::vector<profiler::EventAverage> top;
  for (int attempt = 1;; ++attempt) {
    const SchedulerClock start = scheduler_clock();
    profiler::Profiler prof({.activities = {profiler::ProfilerActivity::CPU}});
    big(xb).sum().backward();
    prof.stop();
    top.clear();
    for (const profiler::EventAverage& e : prof.key_averages())
      if (e.key.rfind("aten::", 0) == 0) top.push_back(e);
    const MachineLoad load = machine_load_since(start);
    if (!load.busy()) break;
    if (attempt == 3) {
      std::cerr << "chapter: other programs held the CPU during all three profiles (its threads " << load.str()
                << "): the ranking below measures their load as well as the ops\n";
      break;
    }
    big->zero_grad(/*set_to_none=*/true);  // the next profile starts where this one did
  }
  std::stable_sort(top.begin(), top.end(),
                   [](const auto& x, const auto& y) { return x.self_cpu_time_total > y.self_cpu_time_total; });
  std::cout << "占用 CPU 时间最多的两个算子： " << python_list(std::vector<std::string>{top[0].key, top[1].key})
            << "\n";
  std::cout << "（具体耗时每台机器、每次运行都不一样，这里只看排名：矩阵乘一定在最前面）\n";
  std::cout << "完整的表用 prof.key_averages().table(sort_by=\"self_cpu_time_total\", row_limit=10) 打出来\n";
  std::cout << "GPU 上把 activities 加上 CUDA，再按 self_cuda_time_total 排序；要看时间线就用 Nsight Systems\n";
  return 0;
}

int main(int argc, char** argv) { return demos::run(argc, argv, "", 0, chapter_script); }
