// Where a tensor's bytes live: the CPU, CUDA device N, or checking device N (checking_device.h: a
// stand-in for a GPU that every machine has, strict about where bytes live; PyTorch's out-of-tree
// backends plug in the same way, as PrivateUse1). Printed as PyTorch prints devices ("cpu",
// "cuda:0", "checked:0") because error messages quote them.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

namespace ember {

enum class DeviceType : uint8_t { CPU, CUDA, Checked };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = 0;  // always 0 for the CPU

  Device() = default;
  Device(DeviceType type, int index = 0) : type(type), index(static_cast<int8_t>(index)) {}
  // "cpu", "cuda", "cuda:1", "checked", "checked:0"
  Device(const std::string& name);
  Device(const char* name) : Device(std::string(name)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  // Which runtime holds the bytes (allocator.cpp, kernels/backend.cpp). Code that chooses what to
  // do with a tensor asks is_cpu() only, so that the checking device takes CUDA's branches.
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_checked() const { return type == DeviceType::Checked; }
  const char* type_name() const;  // "cpu", "cuda", "checked"
  std::string str() const;
  friend bool operator==(Device a, Device b) { return a.type == b.type && a.index == b.index; }
};

// Prints str(), as libtorch prints a Device: "cpu", "cuda:0".
std::ostream& operator<<(std::ostream& out, Device device);

inline const Device kCPU{DeviceType::CPU, 0};
inline constexpr DeviceType kCUDA = DeviceType::CUDA;  // libtorch's torch::kCUDA: Device(kCUDA, 1), device(kCUDA)
inline Device cuda_device(int index = 0) { return Device{DeviceType::CUDA, index}; }
inline Device checked_device(int index = 0) { return Device{DeviceType::Checked, index}; }

}  // namespace ember
