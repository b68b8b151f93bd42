// Parsing and printing device names.
#include "device.h"

#include <ostream>

#include "error.h"

namespace ember {

Device::Device(const std::string& name) {
  if (name == "cpu") return;
  if (name.rfind("cuda", 0) == 0) {
    type = DeviceType::CUDA;
    if (name.size() == 4) return;
    if (name.size() > 5 && name[4] == ':' && name.find_first_not_of("0123456789", 5) == std::string::npos &&
        name.size() < 8) {
      index = static_cast<int8_t>(std::stoi(name.substr(5)));
      return;
    }
  }
  throw Error(str_cat("Expected one of cpu, cuda device type at start of device string: ", name));
}

std::string Device::str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }

std::ostream& operator<<(std::ostream& out, Device device) { return out << device.str(); }

}  // namespace ember
