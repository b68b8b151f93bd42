// Where a tensor's bytes live: the CPU, or CUDA device N. Printed as PyTorch prints devices
// ("cpu", "cuda:0") because error messages quote them.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

namespace ember {

enum class DeviceType : uint8_t { CPU, CUDA };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = 0;  // always 0 for the CPU

  Device() = default;
  Device(DeviceType type, int index = 0) : type(type), index(static_cast<int8_t>(index)) {}
  // "cpu", "cuda", "cuda:1"
  Device(const std::string& name);
  Device(const char* name) : Device(std::string(name)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;
  friend bool operator==(Device a, Device b) { return a.type == b.type && a.index == b.index; }
};

// Prints str(), as libtorch prints a Device: "cpu", "cuda:0".
std::ostream& operator<<(std::ostream& out, Device device);

inline const Device kCPU{DeviceType::CPU, 0};
inline Device cuda_device(int index = 0) { return Device{DeviceType::CUDA, index}; }

}  // namespace ember
