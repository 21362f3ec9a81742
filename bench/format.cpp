#include "bench/format.hpp"

#include <algorithm>
#include <ctime>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace gpubench {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string ratio(double v) {
  if (!(v > 0) || v >= 0.1) return fixed(v, 2) + "x";
  const int digits = 1 - static_cast<int>(std::floor(std::log10(v)));  // two significant digits
  return fixed(v, std::min(digits, 12)) + "x";
}

std::string column(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string pad(width - s.size(), ' ');
  return right ? pad + s : s + pad;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right) : right_(std::move(right)) {
  right_.resize(header.size(), false);
  rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> row) {
  row.resize(right_.size());
  rows_.push_back(std::move(row));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> width(right_.size(), 0);
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows_) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      if (c > 0) line += "  ";
      line += right_[c] ? column(row[c], width[c], true) : last ? row[c] : column(row[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
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
