// The text formatting every writer shares: fixed-point numbers, table columns, timestamps.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// `v` with `digits` digits after the point.
std::string fixed(double v, int digits);
// A speedup or a ratio, "2.00x": two digits after the point, or two significant digits below 0.1
// (0.0017x, never "0.00x").
std::string ratio(double v);
// `s` padded to `width` (right-aligned when `right`). A longer `s` is kept whole: a row that
// shifts is better than a value cut short.
std::string column(const std::string& s, std::size_t width, bool right = false);
// A text table whose columns are as wide as their widest cell, two spaces apart: nothing is cut
// and nothing runs into its neighbour. Columns are left-aligned unless `right` says otherwise; the
// last column is not padded.
class TextTable {
 public:
  TextTable(std::vector<std::string> header, std::vector<bool> right);
  void add(std::vector<std::string> row);  // fewer cells than the header: the rest are blank
  void print(std::ostream& out, const std::string& indent = "") const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::vector<std::string>> rows_;  // the header first
  std::vector<bool> right_;
};

// Now, in local time, ISO 8601 with the offset: "2026-11-23T17:15:53+0000".
std::string iso_timestamp();

}  // namespace gpubench
