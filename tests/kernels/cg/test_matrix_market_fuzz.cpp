// The Matrix Market reader against damaged copies of the real matrices in tests/data/matrices:
// a fixed seed, a bounded count and time. Every damaged file either reads as a well-formed CSR
// matrix or is an InputError with a message of bounded length; never another exception, a
// signal, or an allocation the host cannot hold.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/matrix_market.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::cg {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One random damage of `text`, as a file meets it: bytes changed, inserted or cut, the file
// truncated, a line repeated, a number replaced by an extreme one, the banner's words changed.
std::string damaged(std::string text, std::mt19937_64& random) {
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  static const std::vector<std::string> numbers = {"0",    "-1",  "2147483647", "2147483648", "99999999999999999999",
                                                   "1e400", "nan", "inf",        "-0",         "1e-400",
                                                   "0x10",  "1.5", "",           "1 1",        "\t"};
  static const std::vector<std::string> words = {"complex", "pattern", "integer", "general", "skew-symmetric",
                                                 "hermitian", "array", "MatrixMarket", "%%MatrixMarket"};
  static const std::string bytes = std::string("\0\r\n\t -+.eE0123456789%\xEF\xBB\xBF\xFF\xFE", 26);
  switch (pick(7)) {
    case 0:  // change a few bytes
      for (std::size_t i = 0, n = 1 + pick(8); i < n && !text.empty(); ++i) text[pick(text.size())] = bytes[pick(bytes.size())];
      break;
    case 1:  // insert bytes
      for (std::size_t i = 0, n = 1 + pick(16); i < n; ++i) text.insert(pick(text.size() + 1), 1, bytes[pick(bytes.size())]);
      break;
    case 2:  // cut a span
      if (!text.empty()) {
        const std::size_t at = pick(text.size());
        text.erase(at, 1 + pick(std::min<std::size_t>(200, text.size() - at)));
      }
      break;
    case 3:  // truncate
      text.resize(pick(text.size() + 1));
      break;
    case 4: {  // repeat a line
      const std::size_t at = text.rfind('\n', pick(text.size()));
      const std::size_t from = at == std::string::npos ? 0 : at + 1, to = text.find('\n', from);
      const std::string line = text.substr(from, to == std::string::npos ? std::string::npos : to - from + 1);
      for (std::size_t i = 0, n = 1 + pick(3); i < n; ++i) text.insert(from, line);
      break;
    }
    case 5: {  // replace a number (in the size line or an entry) by an extreme one
      std::size_t at = pick(text.size());
      while (at < text.size() && !std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
      std::size_t end = at;
      while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
      text.replace(at, end - at, numbers[pick(numbers.size())]);
      break;
    }
    default: {  // change a word of the banner
      const std::size_t line_end = text.find('\n');
      const std::size_t at = pick(line_end == std::string::npos ? text.size() : line_end);
      const std::size_t space = text.find(' ', at);
      text.replace(at, space == std::string::npos ? 0 : space - at, words[pick(words.size())]);
      break;
    }
  }
  return text;
}

// Whatever the reader returned is a consistent CSR matrix.
void expect_well_formed(const CsrMatrix& a, const std::string& what) {
  ASSERT_GT(a.rows, 0) << what;
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1) << what;
  ASSERT_EQ(a.row_ptr.front(), 0) << what;
  for (std::size_t r = 0; r + 1 < a.row_ptr.size(); ++r) ASSERT_LE(a.row_ptr[r], a.row_ptr[r + 1]) << what;
  ASSERT_EQ(static_cast<std::size_t>(a.row_ptr.back()), a.col_idx.size()) << what;
  ASSERT_EQ(a.col_idx.size(), a.values.size()) << what;
  for (const auto c : a.col_idx) ASSERT_TRUE(c >= 0 && c < a.rows) << what;
}

TEST(ReadMatrixMarketFuzz, DamagedRealFilesReadOrAreNamedNeverWorse) {
  const std::vector<std::string> sources = {test::matrix_dir() + "/1138_bus.mtx", test::matrix_dir() + "/ani4.mtx"};
  std::vector<std::string> originals;
  for (const auto& s : sources) originals.push_back(read_file(s));

  // What the reader may allocate is bounded by the host memory it believes is there: the test
  // hook keeps a damaged size line from taking gigabytes of this machine.
  ::setenv("GPUBENCH_HOST_MEMORY_AVAILABLE", "268435456", 1);
  const fs::path file = fs::temp_directory_path() / ("gpubench-mtx-fuzz-" + std::to_string(::getpid()) + ".mtx");
  std::mt19937_64 random(20261123);
  constexpr int cases = 400;
  constexpr std::size_t longest_message = 400;
  const auto start = std::chrono::steady_clock::now();
  int read = 0, refused = 0;
  for (int i = 0; i < cases && std::chrono::steady_clock::now() - start < std::chrono::seconds(60); ++i) {
    // The small matrix most of the time; the large one, cut short, now and then.
    std::string text = originals[i % 8 == 7 ? 1 : 0];
    if (i % 8 == 7) text.resize(std::min<std::size_t>(text.size(), 20000));
    for (int d = 0, n = 1 + static_cast<int>(random() % 3); d < n; ++d) text = damaged(std::move(text), random);
    std::ofstream(file, std::ios::binary) << text;
    const std::string what = "case " + std::to_string(i);
    try {
      expect_well_formed(read_matrix_market(file.string()), what);
      ++read;
    } catch (const InputError& e) {
      ++refused;
      EXPECT_LE(std::string(e.what()).size(), longest_message) << what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not an InputError: " << e.what();
    }
    if (HasFailure()) {
      fs::copy_file(file, file.string() + ".failed", fs::copy_options::overwrite_existing);
      ADD_FAILURE() << "the damaged file is kept as " << file.string() << ".failed";
      break;
    }
  }
  ::unsetenv("GPUBENCH_HOST_MEMORY_AVAILABLE");
  fs::remove(file);
  EXPECT_GT(refused, 0);
  std::cout << "fuzz: " << read << " damaged files read, " << refused << " refused" << std::endl;
}

}  // namespace
}  // namespace gpubench::cg
