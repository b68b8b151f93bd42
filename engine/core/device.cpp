// Parsing and printing device names.
#include "device.h"

#include <ostream>

#include "error.h"

namespace ember {

Device::Device(const std::string& name) {
  if (name == "cpu") return;
  for (DeviceType named : {DeviceType::CUDA, DeviceType::Checked}) {
    const std::string prefix = Device(named).type_name();
    if (name.rfind(prefix, 0) != 0) continue;
    type = named;
    if (name.size() == prefix.size()) return;
    const size_t digits = prefix.size() + 1;
    if (name.size() > digits && name[prefix.size()] == ':' &&
        name.find_first_not_of("0123456789", digits) == std::string::npos && name.size() < digits + 3) {
      index = static_cast<int8_t>(std::stoi(name.substr(digits)));
      return;
    }
  }
  throw Error(str_cat("Expected one of cpu, cuda, checked device type at start of device string: ", name));
}

const char* Device::type_name() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::Checked: return "checked";
  }
  return "?";
}

std::string Device::str() const { return is_cpu() ? "cpu" : str_cat(type_name(), ":", static_cast<int>(index)); }

std::ostream& operator<<(std::ostream& out, Device device) { return out << device.str(); }

}  // namespace ember
