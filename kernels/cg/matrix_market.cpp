// The Matrix Market reader: the whole file read at once, parsed line by line into coordinates,
// then turned into CSR (rows counted, columns sorted, duplicates summed).
#include "kernels/cg/matrix_market.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/input_file.hpp"
#include "kernels/cg/problems.hpp"

namespace gpubench::cg {

namespace {

std::string read_whole_file(const std::string& path) {
  // A directory, /dev/zero or another device is refused by name, never read until memory runs out.
  check_input_file(path, "Matrix Market file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    throw InputError("cannot open Matrix Market file '" + path + "': " + std::strerror(errno));
  }
  // Read in one piece where the size is known (large files: no regrowth copies), then on in
  // chunks in case the file was still growing or is not a regular file.
  std::string text;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error && size > 0) {
    text.resize(static_cast<std::size_t>(size));
    text.resize(std::fread(text.data(), 1, text.size(), file.get()));
  }
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, got);
  if (std::ferror(file.get())) {
    throw InputError("cannot read Matrix Market file '" + path + "': read error");
  }
  return text;
}

// from_chars does not take a leading '+', which Matrix Market writers may emit.
std::string_view without_plus(std::string_view text) {
  return text.size() > 1 && text.front() == '+' && text[1] != '-' ? text.substr(1) : text;
}

// File bytes for a message, in quotes, with control and non-ASCII bytes escaped as \xNN: a NUL
// would end the message where it is printed as a C string, and others garble the terminal.
// At most the first 80 bytes: a line may be the whole file (CR-only line ends).
std::string quoted(std::string_view text) {
  constexpr std::size_t limit = 80;
  std::string out = "'";
  for (const char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(byte));
      out += escaped;
    }
  }
  out += "'";
  if (text.size() > limit) {
    out += " (the first " + std::to_string(limit) + " of " + std::to_string(text.size()) +
           " bytes)";
  }
  return out;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) { return to_lower(x) == to_lower(y); };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
}

// The whitespace-separated fields of one line.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line) {}

  // The next field, or an empty view at the end of the line.
  std::string_view next() {
    std::size_t i = 0;
    while (i < rest_.size() && is_blank(rest_[i])) ++i;
    std::size_t j = i;
    while (j < rest_.size() && !is_blank(rest_[j])) ++j;
    const std::string_view field = rest_.substr(i, j - i);
    rest_.remove_prefix(j);
    return field;
  }

 private:
  std::string_view rest_;
};

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric };

struct Header {
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
};

// Coordinate entries in file order, 0-based, mirrored entries of a symmetric file included.
struct Coordinates {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::vector<std::int32_t> row;
  std::vector<std::int32_t> col;
  std::vector<double> value;
};

// Walks the file line by line and turns every problem into an InputError naming the file, the
// 1-based line and what was expected there.
class MatrixMarketParser {
 public:
  MatrixMarketParser(const std::string& path, std::string_view text, const SharedHostCopies& shared)
      : path_(path), text_(text), shared_(shared) {}

  Coordinates parse() {
    // Some editors start a UTF-8 file with a byte-order mark; it is not part of the banner.
    constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
    if (text_.substr(0, utf8_bom.size()) == utf8_bom) position_ = utf8_bom.size();
    const Header header = parse_banner();
    Coordinates coo = parse_size_line(header);
    parse_entries(header, coo);
    return coo;
  }

 private:
  static constexpr std::string_view expected_banner =
      "'%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'";

  [[noreturn]] void fail(std::int64_t line, const std::string& message) const {
    throw InputError("Matrix Market file '" + path_ + "', line " + std::to_string(line) + ": " +
                     message);
  }

  [[noreturn]] void fail(const std::string& message) const { fail(line_number_, message); }

  // The next line (without its newline) into `line`; false at the end of the file.
  bool next_line(std::string_view& line) {
    if (position_ >= text_.size()) return false;
    const std::size_t end = text_.find('\n', position_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    line = text_.substr(position_, stop - position_);
    position_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_number_;
    return true;
  }

  // The next line that is neither a comment nor blank; false at the end of the file.
  bool next_content_line(std::string_view& line) {
    while (next_line(line)) {
      std::size_t i = 0;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i < line.size() && line[i] != '%') return true;
    }
    return false;
  }

  Header parse_banner() {
    std::string_view line;
    const std::string wanted(expected_banner);
    if (!next_line(line)) fail(1, "the file is empty; expected the banner " + wanted);
    if (line.starts_with("\xFF\xFE") || line.starts_with("\xFE\xFF")) {
      fail("the file is UTF-16 (it starts with a UTF-16 byte-order mark); Matrix Market files "
           "are ASCII: convert it, e.g. with iconv -f UTF-16 -t ASCII");
    }
    Fields fields(line);
    if (!equals_ignoring_case(fields.next(), "%%MatrixMarket")) {
      fail("expected the banner " + wanted + ", found " + quoted(line));
    }
    const std::string_view object = fields.next();
    const std::string_view format = fields.next();
    const std::string_view field = fields.next();
    const std::string_view symmetry = fields.next();
    if (symmetry.empty()) {
      fail("the banner has too few words; expected " + wanted + ", found " + quoted(line));
    }
    if (!fields.next().empty()) {
      fail("the banner has too many words; expected " + wanted + ", found " + quoted(line));
    }
    if (!equals_ignoring_case(object, "matrix")) {
      fail("unsupported object " + quoted(object) + ": only 'matrix' is supported");
    }
    if (!equals_ignoring_case(format, "coordinate")) {
      fail("unsupported format " + quoted(format) +
           ": only 'coordinate' (sparse) is supported, not 'array' (dense)");
    }
    // Symmetry first, so that 'complex hermitian' is reported as hermitian.
    Header header;
    header.symmetry = parse_symmetry(symmetry);
    header.field = parse_field(field);
    return header;
  }

  Field parse_field(std::string_view field) const {
    if (equals_ignoring_case(field, "real")) return Field::real;
    if (equals_ignoring_case(field, "integer")) return Field::integer;
    if (equals_ignoring_case(field, "pattern")) return Field::pattern;
    fail("unsupported field " + quoted(field) + ": expected real, integer or pattern");
  }

  Symmetry parse_symmetry(std::string_view symmetry) const {
    if (equals_ignoring_case(symmetry, "general")) return Symmetry::general;
    if (equals_ignoring_case(symmetry, "symmetric")) return Symmetry::symmetric;
    fail("unsupported symmetry " + quoted(symmetry) + ": only general and symmetric matrices are read");
  }

  // A non-negative decimal integer (an optional '+' allowed), or fail naming `what`.
  std::int64_t parse_count(std::string_view text, const char* what) const {
    if (text.empty()) fail(std::string("missing ") + what);
    std::string_view digits = text;
    if (digits.front() == '+') digits.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc::result_out_of_range) {
      fail(std::string(what) + " " + quoted(text) + " is too large");
    }
    if (error != std::errc() || end != digits.data() + digits.size() || value < 0 ||
        digits.empty()) {
      fail(std::string(what) + " " + quoted(text) + " is not a non-negative integer");
    }
    return value;
  }

  Coordinates parse_size_line(const Header& header) {
    std::string_view line;
    if (!next_content_line(line)) {
      fail(line_number_ + 1, "the file ends before the size line 'rows columns entries'");
    }
    Fields fields(line);
    const std::int64_t rows = parse_count(fields.next(), "row count");
    const std::int64_t cols = parse_count(fields.next(), "column count");
    const std::int64_t entries = parse_count(fields.next(), "entry count");
    if (!fields.next().empty()) {
      fail("expected the size line 'rows columns entries' (three integers), found " +
           quoted(line));
    }
    if (rows > int32_limit || cols > int32_limit) {
      fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
           ": more than the int32 limit of " + std::to_string(int32_limit) + " rows or columns");
    }
    if (rows == 0 || cols == 0 || entries == 0) {
      fail("the matrix is empty (" + std::to_string(rows) + " x " + std::to_string(cols) + ", " +
           std::to_string(entries) + " entries)");
    }
    check_memory(header, rows, cols, entries);
    Coordinates coo;
    coo.rows = static_cast<std::int32_t>(rows);
    coo.cols = static_cast<std::int32_t>(cols);
    declared_entries_ = entries;
    size_line_ = line_number_;
    return coo;
  }

  // The header alone may claim more than the machine holds (2^31 rows in a few bytes): what
  // the reading and the run will hold is checked before anything is allocated. Entries beyond
  // what the rest of the file can hold are not counted: they are reported as missing later.
  void check_memory(const Header& header, std::int64_t rows, std::int64_t cols,
                    std::int64_t entries) const {
    auto stored = std::min(entries, max_entries_left());
    if (header.symmetry == Symmetry::symmetric) stored *= 2;
    // The reader's coordinates (row, column, value) and its two row counters, then the run's.
    const auto reading = static_cast<std::uint64_t>(stored) * (4 + 4 + 8) +
                         2 * static_cast<std::uint64_t>(rows) * 4;
    const SharedHostCopy copy = shared_ ? shared_(rows, stored) : SharedHostCopy{};
    check_host_memory(reading + host_bytes_needed(rows, stored) + copy.bytes,
                      "Matrix Market file '" + path_ + "', line " + std::to_string(line_number_) +
                          ": the " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " matrix with " + std::to_string(stored) + " nonzeros" + copy.holder);
  }

  // Each entry takes at least 4 bytes ("1 1\n").
  std::int64_t max_entries_left() const {
    return static_cast<std::int64_t>(text_.size() - position_) / 4 + 1;
  }

  // A 1-based index in 1..limit, returned 0-based.
  std::int32_t parse_index(std::string_view text, const char* what, std::int32_t limit) const {
    if (text.empty()) fail(std::string("missing ") + what + " index");
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      fail(std::string(what) + " index " + quoted(text) + " is not an integer");
    }
    if (value < 1 || value > limit) {
      fail(std::string(what) + " index " + std::string(text) + " is outside 1.." +
           std::to_string(limit));
    }
    return static_cast<std::int32_t>(value - 1);
  }

  double parse_value(std::string_view text, Field field) const {
    if (text.empty()) {
      fail("missing value: a " + field_name(field) + " file has 3 fields per entry");
    }
    if (field == Field::integer) {
      const std::string_view number = without_plus(text);
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
      if (error != std::errc() || end != number.data() + number.size()) {
        fail("value " + quoted(text) + " is not an integer (the file's field is integer)");
      }
      return static_cast<double>(value);
    }
    std::string why;
    if (const auto value = parse_real(text, why)) return *value;
    fail("value " + why);
  }

  static std::string field_name(Field field) {
    switch (field) {
      case Field::real:
        return "real";
      case Field::integer:
        return "integer";
      case Field::pattern:
        return "pattern";
    }
    return "?";
  }

  void parse_entries(const Header& header, Coordinates& coo) {
    // A declared count beyond what the file can hold is caught as "fewer entries" below rather
    // than as a failed allocation here.
    auto expected = static_cast<std::size_t>(std::min(declared_entries_, max_entries_left()));
    if (header.symmetry == Symmetry::symmetric) expected *= 2;
    coo.row.reserve(expected);
    coo.col.reserve(expected);
    coo.value.reserve(expected);

    const std::string fields_wanted =
        header.field == Field::pattern ? "'row column' (pattern file)" : "'row column value'";
    std::int64_t count = 0;
    std::string_view line;
    while (next_content_line(line)) {
      if (count == declared_entries_) {
        fail("more entries than the " + std::to_string(declared_entries_) + " declared on line " +
             std::to_string(size_line_));
      }
      Fields fields(line);
      const std::int32_t i = parse_index(fields.next(), "row", coo.rows);
      const std::int32_t j = parse_index(fields.next(), "column", coo.cols);
      const double v =
          header.field == Field::pattern ? 1.0 : parse_value(fields.next(), header.field);
      if (!fields.next().empty()) {
        fail("too many fields: expected " + fields_wanted + ", found " + quoted(line));
      }
      push(coo, i, j, v);
      if (header.symmetry == Symmetry::symmetric && i != j) {
        check_one_triangle(i > j);
        push(coo, j, i, v);
      }
      ++count;
    }
    if (count < declared_entries_) {
      fail(line_number_ + 1, "the file ends after " + std::to_string(count) + " entries, but " +
                                 std::to_string(declared_entries_) + " were declared on line " +
                                 std::to_string(size_line_));
    }
  }

  // A symmetric file stores one triangle, which is mirrored. Either triangle is accepted, but
  // not both: entries stored in both would be mirrored onto each other and summed twice.
  void check_one_triangle(bool lower) {
    std::int64_t& first_here = lower ? first_lower_line_ : first_upper_line_;
    const std::int64_t first_other = lower ? first_upper_line_ : first_lower_line_;
    if (first_here == 0) first_here = line_number_;
    if (first_other != 0) {
      fail(std::string("this symmetric file's entry is ") + (lower ? "below" : "above") +
           " the diagonal, but line " + std::to_string(first_other) + "'s is " +
           (lower ? "above" : "below") + ": a symmetric file stores one triangle only");
    }
  }

  void push(Coordinates& coo, std::int32_t i, std::int32_t j, double v) const {
    if (static_cast<std::int64_t>(coo.row.size()) >= int32_limit) {
      fail("the matrix has more than the int32 limit of " + std::to_string(int32_limit) +
           " nonzeros (CSR indices are 32-bit)");
    }
    coo.row.push_back(i);
    coo.col.push_back(j);
    coo.value.push_back(v);
  }

  const std::string& path_;
  std::string_view text_;
  const SharedHostCopies& shared_;
  std::size_t position_ = 0;
  std::int64_t line_number_ = 0;
  std::int64_t declared_entries_ = 0;
  std::int64_t size_line_ = 0;
  std::int64_t first_lower_line_ = 0;
  std::int64_t first_upper_line_ = 0;
};

// Sorts columns[first, last) ascending, carrying values along, keeping equal columns in their
// input (file) order so that duplicates are summed in file order. Rows are short and often
// already sorted, so insertion sort is the common path.
void sort_row(std::int32_t* columns, double* values, std::size_t count) {
  if (std::is_sorted(columns, columns + count)) return;
  if (count <= 32) {
    for (std::size_t k = 1; k < count; ++k) {
      const std::int32_t c = columns[k];
      const double v = values[k];
      std::size_t m = k;
      for (; m > 0 && columns[m - 1] > c; --m) {
        columns[m] = columns[m - 1];
        values[m] = values[m - 1];
      }
      columns[m] = c;
      values[m] = v;
    }
    return;
  }
  std::vector<std::pair<std::int32_t, double>> entries(count);
  for (std::size_t k = 0; k < count; ++k) entries[k] = {columns[k], values[k]};
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < count; ++k) {
    columns[k] = entries[k].first;
    values[k] = entries[k].second;
  }
}

// CSR from coordinates: a counting sort by row (stable), a sort by column within each row,
// then duplicates summed and compacted in place.
CsrMatrix coordinates_to_csr(Coordinates&& coo) {
  const auto rows = static_cast<std::size_t>(coo.rows);
  const std::size_t entries = coo.row.size();

  std::vector<std::int32_t> start(rows + 1, 0);
  for (std::int32_t r : coo.row) ++start[static_cast<std::size_t>(r) + 1];
  for (std::size_t r = 0; r < rows; ++r) start[r + 1] += start[r];

  CsrMatrix a;
  a.rows = coo.rows;
  a.cols = coo.cols;
  a.col_idx.resize(entries);
  a.values.resize(entries);
  {
    std::vector<std::int32_t> next(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < entries; ++e) {
      const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(coo.row[e])]++);
      a.col_idx[slot] = coo.col[e];
      a.values[slot] = coo.value[e];
    }
  }
  coo = Coordinates{};  // release the coordinates before the matrix grows no further

  a.row_ptr.resize(rows + 1);
  a.row_ptr[0] = 0;
  std::size_t out = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto first = static_cast<std::size_t>(start[r]);
    const auto last = static_cast<std::size_t>(start[r + 1]);
    sort_row(a.col_idx.data() + first, a.values.data() + first, last - first);
    for (std::size_t k = first; k < last; ++k) {
      if (out > static_cast<std::size_t>(a.row_ptr[r]) && a.col_idx[out - 1] == a.col_idx[k]) {
        a.values[out - 1] += a.values[k];
      } else {
        a.col_idx[out] = a.col_idx[k];
        a.values[out] = a.values[k];
        ++out;
      }
    }
    a.row_ptr[r + 1] = static_cast<std::int32_t>(out);
  }
  a.col_idx.resize(out);
  a.values.resize(out);
  a.col_idx.shrink_to_fit();
  a.values.shrink_to_fit();
  return a;
}

}  // namespace

std::optional<double> parse_real(std::string_view text, std::string& why) {
  const std::string_view number = without_plus(text);
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error == std::errc::result_out_of_range)
    why = quoted(text) + " is out of the range of double";
  else if (error != std::errc() || end != number.data() + number.size())
    why = quoted(text) + " is not a number";
  else if (!std::isfinite(value))
    why = quoted(text) + " is not finite";
  else
    return value;
  return std::nullopt;
}

CsrMatrix read_matrix_market(const std::string& path, const SharedHostCopies& shared) {
  const std::string text = read_whole_file(path);
  Coordinates coo = MatrixMarketParser(path, text, shared).parse();
  return coordinates_to_csr(std::move(coo));
}

}  // namespace gpubench::cg
