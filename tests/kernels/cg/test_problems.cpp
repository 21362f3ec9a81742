// Tests of the CG problem generators, the Matrix Market reader, the CG suitability check and
// the command-line problem names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/problems.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::cg {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string matrix_path(const std::string& name) {
  return test::matrix_dir() + "/" + name;
}

std::string data_path(const std::string& name) {
  return test::test_data_dir() + "/" + name;
}

// The message of the InputError that `f` throws, or a test failure if it throws none.
template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// A file with `content` in the temporary directory, removed when the test ends.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content)
      : path_((std::filesystem::temp_directory_path() /
               ("gpubench_cg_" + std::to_string(getpid()) + "_" + name))
                  .string()) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// MemAvailable in bytes, 0 where unknown.
std::uint64_t available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::uint64_t kilobytes = 0;
  for (std::string key; meminfo >> key;)
    if (key == "MemAvailable:") meminfo >> kilobytes;
  return kilobytes * 1024;
}

std::vector<std::vector<double>> dense(const CsrMatrix& a) {
  std::vector<std::vector<double>> d(static_cast<std::size_t>(a.rows),
                                     std::vector<double>(static_cast<std::size_t>(a.cols), 0.0));
  for (std::size_t r = 0; r < d.size(); ++r) {
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      d[r][static_cast<std::size_t>(a.col_idx[static_cast<std::size_t>(k)])] +=
          a.values[static_cast<std::size_t>(k)];
    }
  }
  return d;
}

// CSR invariants every producer must keep: sizes agree, row_ptr starts at 0 and never
// decreases, columns in range and strictly ascending within each row.
void expect_well_formed(const CsrMatrix& a) {
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1);
  ASSERT_EQ(a.row_ptr.front(), 0);
  ASSERT_EQ(a.row_ptr.back(), a.nnz());
  ASSERT_EQ(a.values.size(), a.col_idx.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(a.rows); ++r) {
    ASSERT_LE(a.row_ptr[r], a.row_ptr[r + 1]) << "row " << r;
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto c = a.col_idx[static_cast<std::size_t>(k)];
      ASSERT_GE(c, 0);
      ASSERT_LT(c, a.cols);
      if (k > a.row_ptr[r]) {
        ASSERT_LT(a.col_idx[static_cast<std::size_t>(k) - 1], c) << "row " << r;
      }
    }
  }
}

double entry(const CsrMatrix& a, int row, int col) {
  for (auto k = a.row_ptr[static_cast<std::size_t>(row)];
       k < a.row_ptr[static_cast<std::size_t>(row) + 1]; ++k) {
    if (a.col_idx[static_cast<std::size_t>(k)] == col) return a.values[static_cast<std::size_t>(k)];
  }
  return 0.0;
}

std::vector<double> times_ones(const CsrMatrix& a) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (std::size_t r = 0; r < y.size(); ++r) {
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      y[r] += a.values[static_cast<std::size_t>(k)];
    }
  }
  return y;
}

CsrMatrix csr(std::int32_t rows, std::int32_t cols, std::vector<std::int32_t> row_ptr,
              std::vector<std::int32_t> col_idx, std::vector<double> values) {
  CsrMatrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = std::move(row_ptr);
  a.col_idx = std::move(col_idx);
  a.values = std::move(values);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Poisson generators

TEST(Poisson2d, TinyGridEntryByEntry) {
  const CsrMatrix a = poisson2d(3);
  expect_well_formed(a);
  // Grid points numbered x-fastest: point (x, y) is row 3*y + x.
  const std::vector<std::vector<double>> expected = {
      {4, -1, 0, -1, 0, 0, 0, 0, 0},    //
      {-1, 4, -1, 0, -1, 0, 0, 0, 0},   //
      {0, -1, 4, 0, 0, -1, 0, 0, 0},    //
      {-1, 0, 0, 4, -1, 0, -1, 0, 0},   //
      {0, -1, 0, -1, 4, -1, 0, -1, 0},  //
      {0, 0, -1, 0, -1, 4, 0, 0, -1},   //
      {0, 0, 0, -1, 0, 0, 4, -1, 0},    //
      {0, 0, 0, 0, -1, 0, -1, 4, -1},   //
      {0, 0, 0, 0, 0, -1, 0, -1, 4},
  };
  EXPECT_EQ(dense(a), expected);
  EXPECT_EQ(a.nnz(), 33);
}

TEST(Poisson2d, SizesAndNonzeros) {
  for (int n : {1, 2, 5, 64, 257}) {
    SCOPED_TRACE(n);
    const CsrMatrix a = poisson2d(n);
    expect_well_formed(a);
    EXPECT_EQ(a.rows, n * n);
    EXPECT_EQ(a.cols, n * n);
    EXPECT_EQ(a.nnz(), 5LL * n * n - 4LL * n);
  }
}

TEST(Poisson2d, InteriorRowsSumToZeroBoundaryRowsArePositive) {
  const int n = 17;
  const CsrMatrix a = poisson2d(n);
  const std::vector<double> sums = times_ones(a);
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const int missing = (x == 0) + (x == n - 1) + (y == 0) + (y == n - 1);
      EXPECT_EQ(sums[static_cast<std::size_t>(y * n + x)], missing) << "x " << x << " y " << y;
    }
  }
}

TEST(Poisson2d, IsSymmetricAndPassesTheCgCheck) {
  const CsrMatrix a = poisson2d(20);
  for (int r = 0; r < a.rows; ++r) {
    for (auto k = a.row_ptr[static_cast<std::size_t>(r)];
         k < a.row_ptr[static_cast<std::size_t>(r) + 1]; ++k) {
      const int c = a.col_idx[static_cast<std::size_t>(k)];
      EXPECT_EQ(entry(a, c, r), a.values[static_cast<std::size_t>(k)]);
    }
  }
  EXPECT_NO_THROW(check_cg_matrix(a, "poisson2d:20"));
}

// Its build time is recorded (about 0.9 s on an idle core), never asserted: a test must not fail
// on a loaded machine. Timing targets live in benchmarks.
TEST(Poisson2d, LargeGridBuildsAndRecordsItsTime) {
  const auto start = std::chrono::steady_clock::now();
  const CsrMatrix a = poisson2d(4096);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("poisson2d_4096_seconds", std::to_string(seconds));
  EXPECT_EQ(a.rows, 4096 * 4096);
  EXPECT_EQ(a.nnz(), 5LL * 4096 * 4096 - 4LL * 4096);
  EXPECT_EQ(a.row_ptr.back(), a.nnz());
  // Row 0 holds columns 0, 1, 4096; row 1 holds 0, 1, 2, 4097.
  EXPECT_EQ(a.col_idx[2], 4096);
  EXPECT_EQ(a.col_idx[6], 4097);
}

TEST(Poisson3d, TinyGridEntryByEntry) {
  const CsrMatrix a = poisson3d(2);
  expect_well_formed(a);
  // Point (x, y, z) is row 4*z + 2*y + x; on a 2-grid every point has exactly 3 neighbours.
  std::vector<std::vector<double>> expected(8, std::vector<double>(8, 0.0));
  for (std::size_t r = 0; r < 8; ++r) {
    expected[r][r] = 6;
    for (std::size_t bit : {1u, 2u, 4u}) expected[r][r ^ bit] = -1;
  }
  EXPECT_EQ(dense(a), expected);
}

TEST(Poisson3d, SizesNonzerosAndRowSums) {
  for (int n : {1, 2, 3, 10, 33}) {
    SCOPED_TRACE(n);
    const CsrMatrix a = poisson3d(n);
    expect_well_formed(a);
    EXPECT_EQ(a.rows, n * n * n);
    EXPECT_EQ(a.nnz(), 7LL * n * n * n - 6LL * n * n);
    const std::vector<double> sums = times_ones(a);
    for (int z = 0; z < n; ++z) {
      for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
          const int missing =
              (x == 0) + (x == n - 1) + (y == 0) + (y == n - 1) + (z == 0) + (z == n - 1);
          ASSERT_EQ(sums[static_cast<std::size_t>((z * n + y) * n + x)], missing);
        }
      }
    }
    EXPECT_NO_THROW(check_cg_matrix(a, "poisson3d"));
  }
}

TEST(Poisson, RejectsGridSizesBelowOne) {
  EXPECT_THAT(input_error_of([] { poisson2d(0); }), HasSubstr("at least 1"));
  EXPECT_THAT(input_error_of([] { poisson2d(-5); }), HasSubstr("at least 1"));
  EXPECT_THAT(input_error_of([] { poisson3d(0); }), HasSubstr("at least 1"));
}

TEST(Poisson, RejectsSizesBeyondInt32BeforeAllocating) {
  // 46341^2 rows > 2^31 - 1.
  EXPECT_THAT(input_error_of([] { poisson2d(46341); }),
              AllOf(HasSubstr("46341"), HasSubstr("rows"), HasSubstr("2147483647")));
  // Rows fit (429 million) but 5 n^2 - 4 n nonzeros do not.
  EXPECT_THAT(input_error_of([] { poisson2d(20725); }),
              AllOf(HasSubstr("2147545225 nonzeros"), HasSubstr("2147483647")));
  EXPECT_THAT(input_error_of([] { poisson3d(1291); }),
              AllOf(HasSubstr("1291"), HasSubstr("rows"), HasSubstr("2147483647")));
  EXPECT_THAT(input_error_of([] { poisson3d(700); }),
              AllOf(HasSubstr("nonzeros"), HasSubstr("2147483647")));
  EXPECT_THAT(input_error_of([] { poisson3d(std::numeric_limits<int>::max()); }),
              HasSubstr("rows"));
}

// ---------------------------------------------------------------------------------------------
// Matrix Market reader on real matrices

// Stored entries and stored diagonal entries of a Matrix Market file, counted independently of
// the reader, to check its expansion of symmetric files.
struct StoredCounts {
  long entries = 0;
  long diagonal = 0;
};

StoredCounts count_stored(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  StoredCounts counts;
  bool size_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%') continue;
    if (!size_seen) {
      size_seen = true;
      continue;
    }
    std::istringstream fields(line);
    long i = 0;
    long j = 0;
    fields >> i >> j;
    ++counts.entries;
    counts.diagonal += i == j;
  }
  return counts;
}

TEST(ReadMatrixMarket, Bus1138SymmetricLowerTriangleIsExpanded) {
  const std::string path = matrix_path("1138_bus.mtx");
  const StoredCounts stored = count_stored(path);
  ASSERT_EQ(stored.entries, 2596);
  ASSERT_EQ(stored.diagonal, 1138);

  const CsrMatrix a = read_matrix_market(path);
  expect_well_formed(a);
  EXPECT_EQ(a.rows, 1138);
  EXPECT_EQ(a.cols, 1138);
  EXPECT_EQ(a.nnz(), 2 * stored.entries - stored.diagonal);
  EXPECT_EQ(a.nnz(), 4054);
  EXPECT_EQ(entry(a, 0, 0), 1474.779);   // "1 1 1474.779"
  EXPECT_EQ(entry(a, 4, 0), -9.017133);  // "5 1 -9.017133", and its mirror
  EXPECT_EQ(entry(a, 0, 4), -9.017133);
  EXPECT_EQ(entry(a, 3, 26), -.4755112);  // "27 4 -.4755112": no digit before the point
  EXPECT_NO_THROW(check_cg_matrix(a, path));
}

TEST(ReadMatrixMarket, Ani4General) {
  const std::string path = matrix_path("ani4.mtx");
  const CsrMatrix a = read_matrix_market(path);
  expect_well_formed(a);
  EXPECT_EQ(a.rows, 3081);
  EXPECT_EQ(a.cols, 3081);
  EXPECT_EQ(a.nnz(), count_stored(path).entries);
  EXPECT_EQ(a.nnz(), 20971);
  EXPECT_EQ(entry(a, 2, 0), -0.4995004995004995);
  EXPECT_NO_THROW(check_cg_matrix(a, path));
}

// ---------------------------------------------------------------------------------------------
// Matrix Market reader on small valid files

TEST(ReadMatrixMarket, SymmetricExpansionDoesNotDoubleTheDiagonal) {
  // Also: comment and blank lines before the size line and between entries, "+5.0", "-2e0".
  const CsrMatrix a = read_matrix_market(data_path("symmetric_lower.mtx"));
  expect_well_formed(a);
  const std::vector<std::vector<double>> expected = {{4, -1, 0}, {-1, 4, -2}, {0, -2, 5}};
  EXPECT_EQ(dense(a), expected);
  EXPECT_EQ(a.nnz(), 7);
}

TEST(ReadMatrixMarket, SymmetricUpperTriangleIsAcceptedToo) {
  const CsrMatrix a = read_matrix_market(data_path("symmetric_upper.mtx"));
  const std::vector<std::vector<double>> expected = {{4, -1, 0}, {-1, 4, -2}, {0, -2, 5}};
  EXPECT_EQ(dense(a), expected);
}

TEST(ReadMatrixMarket, PatternEntriesAreOne) {
  const CsrMatrix a = read_matrix_market(data_path("pattern_symmetric.mtx"));
  expect_well_formed(a);
  const std::vector<std::vector<double>> expected = {{1, 1, 0}, {1, 1, 0}, {0, 0, 1}};
  EXPECT_EQ(dense(a), expected);
}

TEST(ReadMatrixMarket, IntegerField) {
  const CsrMatrix a = read_matrix_market(data_path("integer_general.mtx"));
  expect_well_formed(a);
  const std::vector<std::vector<double>> expected = {{3, -1}, {-1, 7}};
  EXPECT_EQ(dense(a), expected);
}

TEST(ReadMatrixMarket, DuplicatesAreSummedAndColumnsSorted) {
  const CsrMatrix a = read_matrix_market(data_path("duplicates.mtx"));
  expect_well_formed(a);
  EXPECT_EQ(a.nnz(), 4);
  EXPECT_EQ(a.row_ptr, (std::vector<std::int32_t>{0, 2, 4}));
  EXPECT_EQ(a.col_idx, (std::vector<std::int32_t>{0, 1, 0, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{2.0, -1.0, -1.0, 3.0}));
}

TEST(ReadMatrixMarket, WindowsLineEnds) {
  const CsrMatrix a = read_matrix_market(data_path("crlf.mtx"));
  const std::vector<std::vector<double>> expected = {{1, 0}, {0, 2}};
  EXPECT_EQ(dense(a), expected);
}

TEST(ReadMatrixMarket, MissingFileNamesThePath) {
  const std::string path = data_path("no_such_file.mtx");
  EXPECT_THAT(input_error_of([&] { read_matrix_market(path); }),
              AllOf(HasSubstr(path), HasSubstr("cannot open")));
}

TEST(ReadMatrixMarket, DirectoryIsRejected) {
  EXPECT_THAT(input_error_of([] { read_matrix_market(test::test_data_dir()); }),
              HasSubstr("directory"));
}

// ---------------------------------------------------------------------------------------------
// Matrix Market reader on malformed files: each error names the file, the line and the problem.

struct MalformedFile {
  const char* file;
  int line;
  const char* says;  // a part of the message that says what is wrong
};

void PrintTo(const MalformedFile& m, std::ostream* os) { *os << m.file; }

class MalformedMatrixMarket : public ::testing::TestWithParam<MalformedFile> {};

TEST_P(MalformedMatrixMarket, ThrowsInputErrorWithFileLineAndReason) {
  const MalformedFile& m = GetParam();
  const std::string path = data_path(m.file);
  EXPECT_THAT(
      input_error_of([&] { read_matrix_market(path); }),
      AllOf(HasSubstr(path), HasSubstr("line " + std::to_string(m.line) + ":"), HasSubstr(m.says)));
}

INSTANTIATE_TEST_SUITE_P(
    TestData, MalformedMatrixMarket,
    ::testing::Values(
        MalformedFile{"empty_file.mtx", 1, "the file is empty"},
        MalformedFile{"missing_banner.mtx", 1, "expected the banner"},
        MalformedFile{"banner_typo.mtx", 1, "expected the banner"},
        MalformedFile{"banner_too_short.mtx", 1, "too few words"},
        MalformedFile{"banner_too_long.mtx", 1, "too many words"},
        MalformedFile{"banner_not_matrix.mtx", 1, "unsupported object 'vector'"},
        MalformedFile{"array_format.mtx", 1, "unsupported format 'array'"},
        MalformedFile{"complex_field.mtx", 1, "unsupported field 'complex'"},
        MalformedFile{"hermitian.mtx", 1, "unsupported symmetry 'hermitian'"},
        MalformedFile{"skew_symmetric.mtx", 1, "unsupported symmetry 'skew-symmetric'"},
        MalformedFile{"unknown_symmetry.mtx", 1, "unsupported symmetry 'symmetrical'"},
        MalformedFile{"no_size_line.mtx", 5, "ends before the size line"},
        MalformedFile{"size_line_short.mtx", 3, "missing entry count"},
        MalformedFile{"size_line_junk.mtx", 2, "column count 'x' is not a non-negative integer"},
        MalformedFile{"size_line_extra.mtx", 2, "expected the size line"},
        MalformedFile{"size_line_negative.mtx", 2, "row count '-3'"},
        MalformedFile{"zero_rows.mtx", 2, "empty (0 x 0"},
        MalformedFile{"zero_entries.mtx", 3, "empty (3 x 3, 0 entries)"},
        MalformedFile{"huge_entry_count.mtx", 5, "ends after 2 entries, but 999999999999"},
        MalformedFile{"value_not_number.mtx", 4, "value 'abc' is not a number"},
        MalformedFile{"value_trailing_junk.mtx", 5, "value '1.0x' is not a number"},
        MalformedFile{"value_missing.mtx", 5, "missing value"},
        MalformedFile{"value_nan.mtx", 3, "value 'nan' is not finite"},
        MalformedFile{"integer_fraction.mtx", 4, "value '1.5' is not an integer"},
        MalformedFile{"extra_field.mtx", 3, "too many fields"},
        MalformedFile{"index_not_integer.mtx", 4, "row index '2.5' is not an integer"},
        MalformedFile{"column_missing.mtx", 4, "missing column index"},
        MalformedFile{"row_out_of_range.mtx", 5, "row index 4 is outside 1..3"},
        MalformedFile{"column_zero.mtx", 4, "column index 0 is outside 1..3"},
        MalformedFile{"too_few_entries.mtx", 6, "ends after 3 entries, but 4 were declared"},
        MalformedFile{"too_many_entries.mtx", 5, "more entries than the 2 declared on line 2"},
        MalformedFile{"symmetric_both_triangles.mtx", 6,
                      "below the diagonal, but line 4's is above"}),
    [](const ::testing::TestParamInfo<MalformedFile>& file_info) {
      std::string name = file_info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

// Issue 12.2: a 78-byte file that claims 2^31 - 1 rows is refused from its header, naming the
// memory it would need, instead of allocating until the machine runs out.
TEST(ReadMatrixMarket, HeaderClaimingMoreMemoryThanTheHostHasIsRefusedBeforeAllocating) {
  const TempFile file("huge_rows.mtx",
                      "%%MatrixMarket matrix coordinate real general\n"
                      "2147483647 2147483647 1\n"
                      "1 1 1.0\n");
  ASSERT_EQ(std::filesystem::file_size(file.path()), 78u);
  // The run alone would hold 52 bytes a row: about 112 GB.
  if (available_memory() > 112'000'000'000u) GTEST_SKIP() << "this host could hold it";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(input_error_of([&] { read_matrix_market(file.path()); }),
              AllOf(HasSubstr(file.path()), HasSubstr("line 2:"),
                    HasSubstr("2147483647 x 2147483647"), HasSubstr("of host memory"),
                    HasSubstr("is available")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Issue 12.15: a UTF-8 byte-order mark (as some Windows editors write) is not part of the banner.
TEST(ReadMatrixMarket, Utf8ByteOrderMarkIsSkipped) {
  const TempFile file("bom.mtx",
                      "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n"
                      "2 2 2\n1 1 4.0\n2 2 5.0\n");
  const CsrMatrix a = read_matrix_market(file.path());
  EXPECT_EQ(a.rows, 2);
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_EQ(entry(a, 1, 1), 5.0);
}

// Issue 12.13: file bytes quoted in a message are escaped: a NUL would end the message where a
// C string is printed (what()), and other control bytes garble the terminal.
TEST(ReadMatrixMarket, NulAndControlBytesAreEscapedInMessages) {
  const TempFile file("nul.mtx", std::string("%%MatrixMarket matrix coordinate real general\n"
                                             "2 2 1\n1 1 4\0junk\x1b[2J\n", 67));
  const std::string message = input_error_of([&] { read_matrix_market(file.path()); });
  EXPECT_EQ(message.find('\0'), std::string::npos);
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_THAT(message, AllOf(HasSubstr("line 3:"), HasSubstr("'4\\x00junk\\x1B[2J'"),
                             HasSubstr("is not a number")));
}

// Issue 12.14: a file with CR-only line ends is one 584 KB line: the message quotes a bounded
// excerpt of it and says how long it is, rather than the whole line.
TEST(ReadMatrixMarket, MessagesQuoteABoundedExcerpt) {
  std::string text = "%%MatrixMarket matrix coordinate real general\r3 3 73000\r";
  while (text.size() < 584'000) text += "1 1 1.0\r";
  const TempFile file("cr_only.mtx", text);
  const std::string message = input_error_of([&] { read_matrix_market(file.path()); });
  EXPECT_LT(message.size(), 300 + file.path().size()) << message;
  EXPECT_THAT(message, AllOf(HasSubstr("line 1:"), HasSubstr("too many words"),
                             HasSubstr("%%MatrixMarket matrix coordinate real general\\x0D3 3"),
                             HasSubstr(std::to_string(text.size()) + " bytes")));
}

// A UTF-16 file is named as such rather than reported as a banner of NULs.
TEST(ReadMatrixMarket, Utf16FileIsNamed) {
  const std::string ascii = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : ascii) utf16 += std::string{c, '\0'};
  const TempFile file("utf16.mtx", utf16);
  EXPECT_THAT(input_error_of([&] { read_matrix_market(file.path()); }),
              AllOf(HasSubstr("line 1:"), HasSubstr("UTF-16")));
}

// ---------------------------------------------------------------------------------------------
// check_cg_matrix

TEST(CheckCgMatrix, RejectsNonSquare) {
  const CsrMatrix a = read_matrix_market(data_path("nonsquare.mtx"));
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(a, "nonsquare.mtx"); }),
              HasSubstr("nonsquare.mtx is 3 x 5: CG needs a square matrix"));
}

TEST(CheckCgMatrix, RejectsEmpty) {
  const CsrMatrix empty = csr(0, 0, {0}, {}, {});
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(empty, "m"); }), HasSubstr("m is empty"));
  const CsrMatrix no_entries = csr(2, 2, {0, 0, 0}, {}, {});
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(no_entries, "m"); }), HasSubstr("empty"));
}

TEST(CheckCgMatrix, RejectsNonSymmetricNamingTheFirstEntry) {
  const CsrMatrix a = read_matrix_market(data_path("nonsymmetric.mtx"));
  EXPECT_THAT(
      input_error_of([&] { check_cg_matrix(a, "nonsymmetric.mtx"); }),
      AllOf(HasSubstr("not symmetric"), HasSubstr("a(1, 2) = -1 but a(2, 1) = -1.0000001")));
}

TEST(CheckCgMatrix, MissingMirrorCountsAsZero) {
  const CsrMatrix a = read_matrix_market(data_path("missing_mirror.mtx"));
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(a, "missing_mirror.mtx"); }),
              HasSubstr("a(3, 1) = -1 but a(1, 3) = 0 (not stored)"));
}

TEST(CheckCgMatrix, AcceptsAsymmetryWithinRounding) {
  const double x = 0.1;
  const double y = std::nextafter(0.1, 1.0);  // one ulp apart: about 1.4e-17 relative
  const CsrMatrix a = csr(2, 2, {0, 2, 4}, {0, 1, 0, 1}, {1.0, x, y, 1.0});
  EXPECT_NO_THROW(check_cg_matrix(a, "m"));
  const CsrMatrix b = csr(2, 2, {0, 2, 4}, {0, 1, 0, 1}, {1.0, 0.1, 0.1 * (1 + 1e-11), 1.0});
  EXPECT_THROW(check_cg_matrix(b, "m"), InputError);
}

TEST(CheckCgMatrix, ExplicitZeroMatchesMissingEntry) {
  const CsrMatrix a = csr(2, 2, {0, 2, 3}, {0, 1, 1}, {1.0, 0.0, 1.0});
  EXPECT_NO_THROW(check_cg_matrix(a, "m"));
}

TEST(CheckCgMatrix, RejectsMalformedCsr) {
  const CsrMatrix unsorted = csr(2, 2, {0, 2, 4}, {1, 0, 0, 1}, {1.0, 1.0, 1.0, 1.0});
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(unsorted, "m"); }), HasSubstr("malformed CSR"));
  const CsrMatrix short_row_ptr = csr(2, 2, {0, 2}, {0, 1}, {1.0, 1.0});
  EXPECT_THAT(input_error_of([&] { check_cg_matrix(short_row_ptr, "m"); }),
              HasSubstr("malformed CSR"));
}

// ---------------------------------------------------------------------------------------------
// make_problem

TEST(MakeProblem, Poisson2d) {
  const Problem p = make_problem("poisson2d:8");
  EXPECT_EQ(p.name, "poisson2d:8");
  EXPECT_EQ(p.a.rows, 64);
  EXPECT_EQ(p.b, times_ones(p.a));  // the exact solution is all ones
}

TEST(MakeProblem, Poisson3d) {
  const Problem p = make_problem("poisson3d:5");
  EXPECT_EQ(p.name, "poisson3d:5");
  EXPECT_EQ(p.a.rows, 125);
  EXPECT_EQ(p.b, times_ones(p.a));
}

TEST(MakeProblem, MatrixMarketFile) {
  const Problem p = make_problem("mtx:" + matrix_path("1138_bus.mtx"));
  EXPECT_EQ(p.name, "mtx:1138_bus.mtx");
  EXPECT_EQ(p.a.rows, 1138);
  EXPECT_EQ(p.a.nnz(), 4054);
  EXPECT_EQ(p.b, times_ones(p.a));
}

TEST(MakeProblem, NpbClass) {
  const Problem p = make_problem("npb:S");
  EXPECT_EQ(p.name, "npb:S");
  EXPECT_EQ(p.a.rows, 1400);
  EXPECT_EQ(p.b, std::vector<double>(1400, 1.0));
}

TEST(MakeProblem, MatrixMarketFileMustSuitCg) {
  EXPECT_THAT(input_error_of([] { make_problem("mtx:" + data_path("nonsquare.mtx")); }),
              AllOf(HasSubstr("nonsquare.mtx"), HasSubstr("3 x 5: CG needs a square matrix")));
  EXPECT_THAT(input_error_of([] { make_problem("mtx:" + data_path("nonsymmetric.mtx")); }),
              AllOf(HasSubstr("nonsymmetric.mtx"), HasSubstr("a(1, 2)")));
  EXPECT_THAT(input_error_of([] { make_problem("mtx:" + data_path("row_out_of_range.mtx")); }),
              HasSubstr("line 5"));
  EXPECT_THAT(input_error_of([] { make_problem("mtx:"); }), HasSubstr("empty"));
}

TEST(MakeProblem, BadGridSizeNamesTheSpec) {
  for (const char* spec : {"poisson2d:abc", "poisson2d:8x", "poisson2d:", "poisson2d:0",
                           "poisson2d:-3", "poisson3d: 4", "poisson3d:99999999999"}) {
    SCOPED_TRACE(spec);
    EXPECT_THAT(input_error_of([&] { make_problem(spec); }),
                AllOf(HasSubstr(std::string("'") + spec + "'"), HasSubstr("positive integer")));
  }
}

// Issue 12.3: the OpenMP backend's "device" copy lives in the host's memory too: a size whose
// host copy fits, and whose device copy fits the device's (the host's) total, is refused when
// both together do not fit, before anything is generated.
TEST(MakeProblem, OpenmpCopyCountsAgainstHostMemory) {
  // 1 GB available, as the test hook says (the machine's own MemAvailable moves with whatever
  // else runs). The host holds about 112 n^2 bytes, the f64 OpenMP copy about 128 n^2: each
  // alone fits in 60% of it, the two together do not. Were the check missing, the run would
  // build a problem of about half a gigabyte, not fill the machine.
  const std::uint64_t available = 1'000'000'000;
  const auto n = static_cast<long>(std::sqrt(0.6 * static_cast<double>(available) / 128));
  const std::string spec = "poisson2d:" + std::to_string(n);
  const test::Result r = test::gpubench("--backend openmp --precision f64 --problem " + spec,
                                        "GPUBENCH_HOST_MEMORY_AVAILABLE=" + std::to_string(available));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr(spec), HasSubstr("of host memory"), HasSubstr("openmp:0")));
}

// Issue 12.3, for problems whose size is known only once read (mtx:) or generated (npb:): the
// CPU devices' copies (the suite hands make_problem a function that counts them) are counted
// with the host's own before anything of the matrix's size is allocated.
TEST(MakeProblem, CpuDeviceCopiesCountForFilesAndNpbClasses) {
  std::vector<std::pair<std::int64_t, std::int64_t>> asked;
  const SharedHostCopies huge = [&](std::int64_t rows, std::int64_t nnz) {
    asked.emplace_back(rows, nnz);
    return SharedHostCopy{std::uint64_t{1} << 60, ", counting the copy that a test device keeps there"};
  };
  EXPECT_THAT(input_error_of([&] { make_problem("mtx:" + matrix_path("1138_bus.mtx"), huge); }),
              AllOf(HasSubstr("1138_bus.mtx"), HasSubstr("of host memory"), HasSubstr("a test device keeps there")));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].first, 1138);  // the header's size, before the entries are read
  EXPECT_THAT(input_error_of([&] { make_problem("npb:S", huge); }),
              AllOf(HasSubstr("npb:S"), HasSubstr("1400 rows"), HasSubstr("a test device keeps there")));
  // Nothing to share: the same problems load.
  const SharedHostCopies none = [](std::int64_t, std::int64_t) { return SharedHostCopy{}; };
  EXPECT_EQ(make_problem("npb:S", none).a.rows, 1400);
  EXPECT_EQ(make_problem("mtx:" + matrix_path("1138_bus.mtx"), none).a.rows, 1138);
}

// Issue 12.17: under an address-space limit (ulimit -v) the room left below the limit, not the
// machine's MemAvailable, is what a problem must fit in; the message says which binds.
TEST(MakeProblem, TheAddressSpaceLimitIsWhatAProblemMustFitUnder) {
  // 3 GB of address space: the binary and its libraries load, poisson2d:6000 (about 4 GB on the
  // host) cannot fit. The hook makes the machine look large, so only the limit can refuse it.
  const std::string cmd = "ulimit -v 3000000 && GPUBENCH_HOST_MEMORY_AVAILABLE=1000000000000 " +
                          test::gpubench_binary() + " --backend openmp --problem poisson2d:6000 --repetitions 1 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  ASSERT_TRUE(pipe);
  std::string output;
  for (std::array<char, 4096> buf{}; std::fgets(buf.data(), buf.size(), pipe.get());) output += buf.data();
  const int status = pclose(pipe.release());
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 3) << output;
  EXPECT_THAT(output, AllOf(HasSubstr("poisson2d:6000"), HasSubstr("of host memory"),
                            HasSubstr("address-space limit (ulimit -v)")));
}

// Issue 12.16: values near 1e-200 make b = A ones nonzero but its squared norm 0 in double: the
// run says so (exit 3), instead of failing every point on "the right-hand side b is zero".
TEST(MakeProblem, ARightHandSideWhoseNormUnderflowsIsNamed) {
  const auto path = std::filesystem::temp_directory_path() / ("gpubench-tiny-" + std::to_string(::getpid()) + ".mtx");
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1e-200\n2 2 2e-200\n";
  const test::Result r = test::gpubench("--suite cg --backend openmp --problem mtx:" + path.string() +
                                        " --iterations 5 --repetitions 1");
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("squared norm that underflows"), HasSubstr("2e-200"),
                              testing::Not(HasSubstr("is zero"))));
}

TEST(MakeProblem, UnknownKindListsTheValidForms) {
  for (const char* spec : {"laplace:5", "poisson2d", "", "POISSON2D:4", "npb"}) {
    SCOPED_TRACE(spec);
    EXPECT_THAT(input_error_of([&] { make_problem(spec); }),
                HasSubstr("poisson2d:N, poisson3d:N, mtx:PATH, npb:S|W|A|B|C"));
  }
}

TEST(MakeProblem, UnknownNpbClassListsTheClasses) {
  EXPECT_THAT(input_error_of([] { make_problem("npb:D"); }),
              AllOf(HasSubstr("npb:D"), HasSubstr("S, W, A, B, C")));
}

}  // namespace
}  // namespace gpubench::cg
