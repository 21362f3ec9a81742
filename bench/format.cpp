#include "bench/format.hpp"

#include <ctime>
#include <iomanip>
#include <sstream>

namespace gpubench {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string column(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string pad(width - s.size(), ' ');
  return right ? pad + s : s + pad;
}

std::string iso_timestamp() {
  char date[40];
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", &local);
  return date;
}

}  // namespace gpubench
