#include "kernels/spec/spec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/input_file.hpp"

namespace gpubench::spec {

namespace {

// The most a spec, and each source or data file it names, may hold.
constexpr std::uint64_t max_spec_bytes = std::uint64_t(16) << 20;
constexpr std::uint64_t max_spec_file_bytes = std::uint64_t(1) << 30;

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

class Reader {
 public:
  explicit Reader(Spec& s) : s_(s) {}
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(s_.where(field) + ": " + what);
  }
  const json& need(const json& object, const std::string& key, const std::string& field) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(field.empty() ? key : field + "." + key, "missing (the spec must give it)");
    return *it;
  }
  std::string text(const json& v, const std::string& field) const {
    if (!v.is_string() || v.get<std::string>().empty()) fail(field, "must be a non-empty string");
    return v.get<std::string>();
  }
  // An integer expression: a string, or a whole number (written as text).
  std::string expression(const json& v, const std::string& field) const {
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    return text(v, field);
  }
  double number(const json& v, const std::string& field) const {
    if (!v.is_number()) fail(field, "must be a number");
    return v.get<double>();
  }
  // A file the spec names, relative to its folder: its text (InputError naming the field when unreadable).
  std::string file(const std::string& name, const std::string& field, std::string* resolved = nullptr) const {
    const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : fs::path(s_.dir) / name;
    std::string body;
    try {  // a regular file (or a pipe) only, of at most max_spec_file_bytes
      body = read_input_file(p.string(), "file", max_spec_file_bytes);
    } catch (const InputError& e) {
      fail(field, e.what());
    }
    if (resolved) *resolved = p.string();
    hashed_ += body;
    return body;
  }
  std::string hashed() const { return hashed_; }

 private:
  Spec& s_;
  mutable std::string hashed_;
};

bool valid_name(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const std::set<std::string> builtins = {"real_bytes", "max_group", "local_mem", "compute_units"};

Elem parse_elem(const Reader& r, const json& v, const std::string& field) {
  const std::string t = r.text(v, field);
  static const std::map<std::string, Elem> names = {{"f32", Elem::f32}, {"float", Elem::f32}, {"f64", Elem::f64},
                                                    {"double", Elem::f64}, {"real", Elem::real}, {"i32", Elem::i32},
                                                    {"int", Elem::i32}, {"u32", Elem::u32}, {"uint", Elem::u32},
                                                    {"i64", Elem::i64}, {"long", Elem::i64}, {"u64", Elem::u64},
                                                    {"ulong", Elem::u64}};
  const auto it = names.find(t);
  if (it == names.end()) r.fail(field, "unknown element type '" + t + "' (valid: real, f32, f64, i32, u32, i64, u64)");
  return it->second;
}

Init parse_init(const Reader& r, const json& v, const std::string& field, Elem type) {
  Init init;
  if (v.is_null()) return init;
  const bool seeded = v.is_object() && v.size() == 2 && v.contains("random") && v.contains("seed");
  if (!v.is_object() || (v.size() != 1 && !seeded))
    r.fail(field, "must be one of {\"zero\": true}, {\"constant\": X}, {\"random\": [LOW, HIGH], \"seed\": S}, "
                  "{\"ramp\": [START, STEP]} or {\"file\": PATH}");
  if (seeded) {
    if (!v["seed"].is_number_unsigned()) r.fail(field + ".seed", "must be a whole number >= 0");
    init.seed = v["seed"].get<std::uint64_t>();
  }
  const auto first = v.find(v.contains("random") ? "random" : v.begin().key());
  const std::string kind = first.key();
  const json& value = first.value();
  if (kind == "zero") {
    init.kind = Init::zero;
  } else if (kind == "constant") {
    init.kind = Init::constant;
    init.a = r.number(value, field + ".constant");
  } else if (kind == "random" || kind == "ramp") {
    if (!value.is_array() || value.size() != 2) r.fail(field + "." + kind, "must be [a, b]");
    init.kind = kind == "random" ? Init::random : Init::ramp;
    init.a = r.number(value[0], field + "." + kind + "[0]");
    init.b = r.number(value[1], field + "." + kind + "[1]");
    if (init.kind == Init::random && !(init.a <= init.b)) r.fail(field + ".random", "LOW must not be above HIGH");
  } else if (kind == "file") {
    init.kind = Init::file;
    r.file(r.text(value, field + ".file"), field + ".file", &init.path);
  } else {
    r.fail(field, "unknown initialisation '" + kind + "' (valid: zero, constant, random, ramp, file)");
  }
  // An integer buffer's values are whole numbers its type holds (a ramp's end is checked at its length).
  if (type == Elem::i32 || type == Elem::u32 || type == Elem::i64 || type == Elem::u64) {
    const auto [low, high] = integer_range(type);
    const auto whole = [&](double x, const std::string& f, bool step) {
      if (!std::isfinite(x) || x != std::floor(x) || (!step && (x < low || x > high)))
        r.fail(f, std::to_string(x) + " is not a whole number that " + to_string(type) + " holds");
    };
    if (init.kind == Init::constant) whole(init.a, field + ".constant", false);
    if (init.kind == Init::random) whole(init.a, field + ".random[0]", false), whole(init.b, field + ".random[1]", false);
    if (init.kind == Init::ramp) whole(init.a, field + ".ramp[0]", false), whole(init.b, field + ".ramp[1]", true);
  }
  return init;
}

Arg parse_arg(const Reader& r, const json& v, const std::string& field, const Spec& s) {
  Arg a;
  if (v.is_string()) {
    a.kind = Arg::buffer;
    a.text = v.get<std::string>();
    if (!s.buffer(a.text)) {
      std::string known;
      for (const auto& b : s.buffers) known += (known.empty() ? "" : ", ") + b.name;
      r.fail(field, "'" + a.text + "' is not a buffer of the spec (buffers: " + known +
                        "; a scalar is {\"int\": EXPRESSION}, {\"long\": ...} or {\"real\": NUMBER})");
    }
    return a;
  }
  if (!v.is_object() || v.size() != 1)
    r.fail(field, "must be a buffer's name or one of {\"int\"|\"uint\"|\"long\"|\"ulong\": EXPRESSION}, "
                  "{\"float\"|\"double\"|\"real\": NUMBER}");
  const auto first = v.begin();
  const std::string kind = first.key();
  const json& value = first.value();
  static const std::map<std::string, Arg::Kind> kinds = {{"int", Arg::i32},   {"uint", Arg::u32},
                                                         {"long", Arg::i64},  {"ulong", Arg::u64},
                                                         {"float", Arg::f32}, {"double", Arg::f64},
                                                         {"real", Arg::real}};
  const auto it = kinds.find(kind);
  if (it == kinds.end()) r.fail(field, "unknown scalar type '" + kind + "' (valid: int, uint, long, ulong, float, double, real)");
  a.kind = it->second;
  if (a.kind == Arg::f32 || a.kind == Arg::f64 || a.kind == Arg::real) a.number = r.number(value, field + "." + kind);
  else a.text = r.expression(value, field + "." + kind);
  return a;
}

std::vector<std::string> dims(const Reader& r, const json& v, const std::string& field) {
  std::vector<std::string> out;
  if (!v.is_array()) out.push_back(r.expression(v, field));
  else
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(r.expression(v[i], field + "[" + std::to_string(i) + "]"));
  if (out.empty() || out.size() > 3) r.fail(field, "must give 1, 2 or 3 sizes");
  return out;
}

Step parse_step(const Reader& r, const json& v, const std::string& field, const Spec& s) {
  if (!v.is_object()) r.fail(field, "must be an object {\"kernel\", \"args\", \"global\", \"local\"}");
  Step st;
  st.kernel = r.text(r.need(v, "kernel", field), field + ".kernel");
  if (!valid_name(st.kernel)) r.fail(field + ".kernel", "'" + st.kernel + "' is not a C identifier");
  const json& args = r.need(v, "args", field);
  if (!args.is_array()) r.fail(field + ".args", "must be a list");
  for (std::size_t i = 0; i < args.size(); ++i)
    st.args.push_back(parse_arg(r, args[i], field + ".args[" + std::to_string(i) + "]", s));
  st.global = dims(r, r.need(v, "global", field), field + ".global");
  st.local = dims(r, r.need(v, "local", field), field + ".local");
  if (st.global.size() != st.local.size())
    r.fail(field, "global has " + std::to_string(st.global.size()) + " sizes and local " + std::to_string(st.local.size()));
  if (v.contains("flops")) st.flops = r.expression(v["flops"], field + ".flops");
  if (v.contains("bytes")) st.bytes = r.expression(v["bytes"], field + ".bytes");
  for (const auto& [key, value] : v.items())
    if (key != "kernel" && key != "args" && key != "global" && key != "local" && key != "flops" && key != "bytes")
      r.fail(field + "." + key, "unknown field (valid: kernel, args, global, local, flops, bytes)");
  return st;
}

Tunable parse_tunable(const Reader& r, const std::string& name, const json& v, const std::string& field) {
  if (v.is_array()) {
    std::vector<int> values;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number_integer()) r.fail(field + "[" + std::to_string(i) + "]", "must be a whole number");
      const auto x = v[i].get<std::int64_t>();
      if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
        r.fail(field + "[" + std::to_string(i) + "]", "is outside a 32-bit int");
      values.push_back(static_cast<int>(x));
    }
    if (values.empty()) r.fail(field, "must list at least one value");
    std::set<int> unique(values.begin(), values.end());
    if (unique.size() != values.size()) r.fail(field, "lists a value twice");
    return Tunable::list(name, values);
  }
  if (v.is_object() && v.size() == 1 && (v.contains("range") || v.contains("powers_of_two"))) {
    const std::string kind = v.contains("range") ? "range" : "powers_of_two";
    const json& b = v[kind];
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
      r.fail(field + "." + kind, "must be [MIN, MAX], whole numbers");
    const auto lo = b[0].get<std::int64_t>(), hi = b[1].get<std::int64_t>();
    if (lo > hi || lo < -(1 << 30) || hi > (1 << 30)) r.fail(field + "." + kind, "must be MIN <= MAX within +-2^30");
    if (kind == "powers_of_two" && (lo < 1 || (lo & (lo - 1)) || (hi & (hi - 1))))
      r.fail(field + "." + kind, "MIN and MAX must be powers of two");
    if (kind == "range" && hi - lo > 100000) r.fail(field + ".range", "spans more than 100000 values");
    return kind == "range" ? Tunable::range(name, static_cast<int>(lo), static_cast<int>(hi))
                           : Tunable::powers_of_two(name, static_cast<int>(lo), static_cast<int>(hi));
  }
  r.fail(field, "must be a list of values, {\"range\": [MIN, MAX]} or {\"powers_of_two\": [MIN, MAX]}");
}

void check_fields(const Reader& r, const json& v, const std::string& field, const std::set<std::string>& valid) {
  for (const auto& [key, value] : v.items()) {
    if (valid.count(key)) continue;
    std::string list;
    for (const auto& k : valid) list += (list.empty() ? "" : ", ") + k;
    r.fail(field.empty() ? key : field + "." + key, "unknown field (valid: " + list + ")");
  }
}

// Every expression of the spec parsed once over its names (sizes, tunables, built-ins at
// stand-in values), so that an unknown name or a syntax error is found on reading, before any
// device: evaluation errors that depend on values (a division by zero at some size) wait.
void check_expression(const Reader& r, const std::string& text, const std::string& field, const IntVars& names,
                      bool real = false) {
  try {
    if (real) {
      RealVars rv;
      for (const auto& [n, v] : names) rv[n] = static_cast<double>(v);
      eval_real(text, rv);
    } else {
      eval_int(text, names);
    }
  } catch (const ExpressionError& e) {
    // A failure that depends on the values (at these stand-ins) is not the spec's fault yet.
    if (e.in_text()) r.fail(field, e.what());
  }
}

}  // namespace

// The values an integer element type holds, as doubles (exact up to 2^53).
std::pair<double, double> integer_range(Elem type) {
  switch (type) {
    case Elem::i32: return {-2147483648.0, 2147483647.0};
    case Elem::u32: return {0.0, 4294967295.0};
    case Elem::i64: return {-9007199254740992.0, 9007199254740992.0};
    case Elem::u64: return {0.0, 9007199254740992.0};
    default: return {-HUGE_VAL, HUGE_VAL};
  }
}

std::size_t elem_bytes(Elem e, Precision p) {
  switch (e) {
    case Elem::f32: case Elem::i32: case Elem::u32: return 4;
    case Elem::f64: case Elem::i64: case Elem::u64: return 8;
    case Elem::real: return bytes_of(p);
  }
  return 8;
}

std::string to_string(Elem e) {
  switch (e) {
    case Elem::f32: return "f32";
    case Elem::f64: return "f64";
    case Elem::real: return "real";
    case Elem::i32: return "i32";
    case Elem::u32: return "u32";
    case Elem::i64: return "i64";
    case Elem::u64: return "u64";
  }
  return "?";
}

const Buffer* Spec::buffer(const std::string& n) const {
  for (const auto& b : buffers)
    if (b.name == n) return &b;
  return nullptr;
}

std::vector<std::pair<std::string, std::int64_t>> Spec::sizes_for(const std::string& problem) const {
  auto out = sizes;
  if (problem.empty()) return out;
  std::stringstream in(problem);
  std::set<std::string> seen;
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(where("sizes") + ": --problem " + problem + ": '" + item + "' is not NAME=VALUE (e.g. " +
                       problem_name(sizes) + ")");
    const std::string n = item.substr(0, eq), v = item.substr(eq + 1);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.first == n; });
    if (it == out.end()) {
      std::string known;
      for (const auto& s : sizes) known += (known.empty() ? "" : ", ") + s.first;
      throw InputError(where("sizes") + ": --problem names '" + n + "', which is not a size of the spec (sizes: " +
                       known + ")");
    }
    if (!seen.insert(n).second) throw InputError(where("sizes") + ": --problem gives '" + n + "' twice");
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || v.empty())
      throw InputError(where("sizes." + n) + ": --problem " + n + "=" + v + " is not a whole number");
    if (value < 1 || value > exact_limit)
      throw InputError(where("sizes." + n) + ": --problem " + n + "=" + v + " must be in [1, 2^53]");
    it->second = value;
  }
  return out;
}

std::string Spec::problem_name(const std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  std::string s;
  for (const auto& [n, v] : sizes) s += (s.empty() ? "" : ",") + n + "=" + std::to_string(v);
  return s;
}

IntVars variables(const std::vector<std::pair<std::string, std::int64_t>>& sizes, const Params& params, Precision p,
                  const DeviceLimits& device) {
  IntVars v;
  for (const auto& [n, x] : sizes) v[n] = x;
  for (const auto& [n, x] : params) v[n] = x;
  v["real_bytes"] = static_cast<std::int64_t>(bytes_of(p));
  v["max_group"] = device.max_group;
  v["local_mem"] = device.local_mem;
  v["compute_units"] = device.compute_units;
  return v;
}

Spec load(const std::string& path) {
  Spec s;
  s.path = path;
  s.dir = fs::path(path).parent_path().string();
  if (s.dir.empty()) s.dir = ".";
  Reader r(s);
  const std::string text = read_input_file(path, "spec", max_spec_bytes);
  json j;
  // A key given twice in one object is refused (JSON parsers differ on which one wins).
  std::vector<std::set<std::string>> keys;
  std::string twice;
  const json::parser_callback_t no_duplicates = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
             twice.empty())
      twice = parsed.get<std::string>();
    return true;
  };
  try {
    j = json::parse(text, no_duplicates);
  } catch (const json::exception& e) {  // a syntax error, a number past a double's range
    throw InputError("spec " + path + ": not valid JSON: " + e.what());
  }
  if (!twice.empty()) throw InputError("spec " + path + ": the key \"" + twice + "\" is given twice in one object");
  if (!j.is_object()) throw InputError("spec " + path + ": not a JSON object");
  check_fields(r, j, "", {"$schema", "schema", "version", "name", "description", "sources", "precisions", "sizes",
                          "buffers", "tunables", "constraints", "defaults", "steps", "work", "verify"});
  if (r.text(r.need(j, "schema", ""), "schema") != "gpubench-kernel-spec")
    r.fail("schema", "must be \"gpubench-kernel-spec\"");
  if (!r.need(j, "version", "").is_number_integer() || j["version"].get<int>() != 1)
    r.fail("version", "this gpubench reads version 1");
  s.name = r.text(r.need(j, "name", ""), "name");
  if (!valid_name(s.name)) r.fail("name", "'" + s.name + "' must be letters, digits and _ (it names the variant and the tuning entry)");
  if (j.contains("description")) s.description = r.text(j["description"], "description");

  // Sources.
  const json& sources = r.need(j, "sources", "");
  if (!sources.is_object())
    r.fail("sources", "must be an object: {\"opencl\": FILE, \"cuda\": FILE} or {\"portable\": FILE}, and/or "
                      "{\"openmp\": FILE, \"omp_target\": FILE}");
  check_fields(r, sources, "sources", {"opencl", "cuda", "portable", "openmp", "omp_target"});
  for (const auto& [field, source, file] : {std::tuple{"openmp", &s.openmp_source, &s.openmp_file},
                                            std::tuple{"omp_target", &s.omp_target_source, &s.omp_target_file}}) {
    if (!sources.contains(field)) continue;
    const std::string name = std::string("sources.") + field;
    const std::string text = r.file(r.text(sources[field], name), name, file);
    // A #line that names the file: the compiler's messages point into it, not into what gpubench adds.
    std::string quoted;
    for (char c : *file) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    *source = "#line 1 \"" + quoted + "\"\n" + text;
  }
  if (sources.contains("portable")) {
    if (sources.contains("opencl") || sources.contains("cuda"))
      r.fail("sources", "a portable body stands for both APIs: give portable alone, or opencl and cuda");
    std::string file;
    const std::string body_text = r.file(r.text(sources["portable"], "sources.portable"), "sources.portable", &file);
    s.portable = true;
    s.opencl_file = s.cuda_file = file;
    s.opencl_source = s.cuda_source = body_text;
  } else {
    if (sources.contains("opencl"))
      s.opencl_source = r.file(r.text(sources["opencl"], "sources.opencl"), "sources.opencl", &s.opencl_file);
    if (sources.contains("cuda")) s.cuda_source = r.file(r.text(sources["cuda"], "sources.cuda"), "sources.cuda", &s.cuda_file);
    if (s.opencl_file.empty() && s.cuda_file.empty() && s.openmp_file.empty() && s.omp_target_file.empty())
      r.fail("sources", "names no source (opencl, cuda, portable, openmp or omp_target)");
  }

  // Precisions: what `real` is.
  if (j.contains("precisions")) {
    const json& p = j["precisions"];
    if (!p.is_array() || p.empty()) r.fail("precisions", "must be a list of f32 and/or f64");
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::string t = r.text(p[i], "precisions[" + std::to_string(i) + "]");
      if (t != "f32" && t != "f64") r.fail("precisions[" + std::to_string(i) + "]", "'" + t + "' is not f32 or f64");
      s.precisions.push_back(parse_precision(t));
    }
  } else {
    s.precisions = {Precision::f32, Precision::f64};
  }

  // Sizes.
  const json& sizes = r.need(j, "sizes", "");
  if (!sizes.is_object() || sizes.empty()) r.fail("sizes", "must be an object of named whole numbers: {\"n\": 4096}");
  for (const auto& [n, v] : sizes.items()) {
    if (!valid_name(n) || builtins.count(n)) r.fail("sizes." + n, "'" + n + "' cannot name a size (a C identifier, not a built-in)");
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > exact_limit)
      r.fail("sizes." + n, "must be a whole number in [1, 2^53] (the default)");
    s.sizes.emplace_back(n, v.get<std::int64_t>());
  }

  // Tunables.
  std::set<std::string> names(builtins);
  for (const auto& [n, v] : s.sizes) names.insert(n);
  if (j.contains("tunables")) {
    const json& t = j["tunables"];
    if (!t.is_object()) r.fail("tunables", "must be an object: {\"NAME\": [values]}");
    std::set<std::string> defines;  // each tunable is the kernel's -D NAME in capitals
    for (const auto& [n, v] : t.items()) {
      if (!valid_name(n) || names.count(n)) r.fail("tunables." + n, "'" + n + "' is a size, a built-in or not a C identifier");
      std::string upper = n;
      std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      if (!defines.insert(upper).second)
        r.fail("tunables." + n, "'" + n + "' is another tunable's name in other capitals: both would be -D" + upper);
      names.insert(n);
      s.space.params.push_back(parse_tunable(r, n, v, "tunables." + n));
    }
  }
  IntVars stand_in;  // every name at a value expressions can be parsed against
  for (const auto& n : names) stand_in[n] = 64;

  // Buffers.
  const json& buffers = r.need(j, "buffers", "");
  if (!buffers.is_object() || buffers.empty()) r.fail("buffers", "must be an object of buffers: {\"out\": {\"type\", \"length\"}}");
  for (const auto& [n, v] : buffers.items()) {
    const std::string field = "buffers." + n;
    if (!valid_name(n)) r.fail(field, "'" + n + "' is not a C identifier");
    if (!v.is_object()) r.fail(field, "must be an object");
    check_fields(r, v, field, {"type", "length", "init", "output", "reset"});
    Buffer b;
    b.name = n;
    b.type = parse_elem(r, r.need(v, "type", field), field + ".type");
    b.length = r.expression(r.need(v, "length", field), field + ".length");
    check_expression(r, b.length, field + ".length", stand_in);
    if (v.contains("init")) b.init = parse_init(r, v["init"], field + ".init", b.type);
    if (v.contains("output")) {
      if (!v["output"].is_boolean()) r.fail(field + ".output", "must be true or false");
      b.output = v["output"].get<bool>();
    }
    if (v.contains("reset")) {
      if (!v["reset"].is_boolean()) r.fail(field + ".reset", "must be true or false");
      b.reset = v["reset"].get<bool>();
    }
    s.buffers.push_back(b);
  }
  if (std::none_of(s.buffers.begin(), s.buffers.end(), [](const Buffer& b) { return b.output; }))
    r.fail("buffers", "no buffer is marked \"output\": true (what would be verified?)");

  // Constraints.
  if (j.contains("constraints")) {
    const json& c = j["constraints"];
    if (!c.is_array()) r.fail("constraints", "must be a list of expressions");
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string field = "constraints[" + std::to_string(i) + "]";
      const std::string e = r.text(c[i], field);
      check_expression(r, e, field, stand_in);
      s.constraints.emplace_back(e, e);
    }
  }

  // Steps: the run's, and (below) the reference's.
  const auto read_steps = [&](const json& list, const std::string& field) {
    if (!list.is_array() || list.empty()) r.fail(field, "must be a non-empty list of kernel launches");
    std::vector<Step> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = field + "[" + std::to_string(i) + "]";
      Step st = parse_step(r, list[i], f, s);
      for (std::size_t d = 0; d < st.global.size(); ++d) {
        check_expression(r, st.global[d], f + ".global[" + std::to_string(d) + "]", stand_in);
        check_expression(r, st.local[d], f + ".local[" + std::to_string(d) + "]", stand_in);
      }
      for (std::size_t a = 0; a < st.args.size(); ++a)
        if (st.args[a].kind != Arg::buffer && !st.args[a].text.empty())
          check_expression(r, st.args[a].text, f + ".args[" + std::to_string(a) + "]", stand_in);
      if (!st.flops.empty()) check_expression(r, st.flops, f + ".flops", stand_in, true);
      if (!st.bytes.empty()) check_expression(r, st.bytes, f + ".bytes", stand_in, true);
      out.push_back(st);
    }
    return out;
  };
  s.steps = read_steps(r.need(j, "steps", ""), "steps");

  // Work model.
  const json& work = r.need(j, "work", "");
  if (!work.is_object()) r.fail("work", "must be {\"flops\": EXPRESSION, \"bytes\": EXPRESSION}");
  check_fields(r, work, "work", {"flops", "bytes"});
  s.flops = r.expression(r.need(work, "flops", "work"), "work.flops");
  s.bytes = r.expression(r.need(work, "bytes", "work"), "work.bytes");
  check_expression(r, s.flops, "work.flops", stand_in, true);
  check_expression(r, s.bytes, "work.bytes", stand_in, true);

  // Verification.
  if (!j.contains("verify"))
    r.fail("verify", "missing: a spec without verification is refused (give \"reference\" or \"expected\", and a tolerance)");
  const json& verify = j["verify"];
  if (!verify.is_object()) r.fail("verify", "must be an object");
  check_fields(r, verify, "verify", {"reference", "expected", "tolerance"});
  if (verify.contains("reference") == verify.contains("expected"))
    r.fail("verify", "give exactly one of \"reference\" (a kernel run once at a fixed configuration) and \"expected\" (files)");
  if (verify.contains("reference")) {
    const json& ref = verify["reference"];
    if (!ref.is_object()) r.fail("verify.reference", "must be an object: {\"steps\": [...], \"params\": {...}}");
    check_fields(r, ref, "verify.reference", {"steps", "params"});
    s.verify.reference = read_steps(r.need(ref, "steps", "verify.reference"), "verify.reference.steps");
    if (ref.contains("params")) {
      if (!ref["params"].is_object()) r.fail("verify.reference.params", "must be {\"TUNABLE\": VALUE}");
      for (const auto& [n, v] : ref["params"].items()) {
        if (!s.space.find(n)) r.fail("verify.reference.params." + n, "'" + n + "' is not a tunable of the spec");
        if (!v.is_number_integer()) r.fail("verify.reference.params." + n, "must be a whole number");
        s.verify.reference_params[n] = v.get<int>();
      }
    }
    for (const auto& t : s.space.params)
      if (!s.verify.reference_params.count(t.name)) s.verify.reference_params[t.name] = t.values.front();
  } else {
    const json& ex = verify["expected"];
    if (!ex.is_object() || ex.empty()) r.fail("verify.expected", "must be {\"BUFFER\": FILE} for each output buffer");
    for (const auto& [n, v] : ex.items()) {
      const Buffer* b = s.buffer(n);
      if (!b || !b->output) r.fail("verify.expected." + n, "'" + n + "' is not an output buffer of the spec");
      std::string resolved;
      r.file(r.text(v, "verify.expected." + n), "verify.expected." + n, &resolved);
      s.verify.expected[n] = resolved;
    }
    for (const auto& b : s.buffers)
      if (b.output && !s.verify.expected.count(b.name))
        r.fail("verify.expected", "gives no file for the output buffer '" + b.name + "'");
  }
  const json& tol = r.need(verify, "tolerance", "verify");
  if (!tol.is_object()) r.fail("verify.tolerance", "must be {\"abs\": A, \"rel\": R}");
  check_fields(r, tol, "verify.tolerance", {"abs", "rel"});
  if (tol.contains("abs")) s.verify.abs = r.number(tol["abs"], "verify.tolerance.abs");
  if (tol.contains("rel")) s.verify.rel = r.number(tol["rel"], "verify.tolerance.rel");
  if (s.verify.abs < 0 || s.verify.rel < 0) r.fail("verify.tolerance", "must not be negative");

  // The heuristic: the spec's defaults, else the first legal configuration on a generous device.
  if (j.contains("defaults")) {
    const json& d = j["defaults"];
    if (!d.is_object()) r.fail("defaults", "must be {\"TUNABLE\": VALUE}");
    for (const auto& [n, v] : d.items()) {
      const Tunable* t = s.space.find(n);
      if (!t) r.fail("defaults." + n, "'" + n + "' is not a tunable of the spec");
      if (!v.is_number_integer() || !t->allows(v.get<int>())) r.fail("defaults." + n, "is not one of its values (" + t->legal + ")");
      s.defaults[n] = v.get<int>();
    }
    for (const auto& t : s.space.params)
      if (!s.defaults.count(t.name)) r.fail("defaults", "gives no value for the tunable '" + t.name + "'");
  }
  s.sha256 = sha256(text + r.hashed());
  return s;
}

TunableSpace space_for(const Spec& spec, const std::vector<std::pair<std::string, std::int64_t>>& sizes, Precision p,
                       const DeviceLimits& device) {
  TunableSpace space = spec.space;
  space.constraints.clear();
  for (const auto& [description, e] : spec.constraints) {
    space.constraints.push_back({description, [sizes, p, device, e = e](const Params& q) {
                                   try {
                                     return eval_int(e, variables(sizes, q, p, device)) != 0;
                                   } catch (const ExpressionError&) {
                                     return false;
                                   }
                                 }});
  }
  return space;
}

std::vector<unsigned char> initial_contents(const Spec& spec, const Buffer& b, std::int64_t count, Precision p) {
  const std::size_t size = elem_bytes(b.type, p);
  std::vector<unsigned char> out(static_cast<std::size_t>(count) * size, 0);
  if (b.init.kind == Init::file) {
    // At most one byte more than the buffer: enough to tell a longer file, never more (/dev/zero).
    std::string d;
    try {
      d = read_input_file(b.init.path, "file", out.size() + 1);
    } catch (const InputError& e) {
      if (std::string(e.what()).find("larger than") == std::string::npos)
        throw InputError(spec.where("buffers." + b.name + ".init.file") + ": " + e.what());
      d.assign(out.size() + 1, '\0');
    }
    if (d.size() != out.size())
      throw InputError(spec.where("buffers." + b.name + ".init.file") + ": " + b.init.path + " holds " +
                       (d.size() > out.size() ? "more than " + std::to_string(out.size()) : std::to_string(d.size())) + " bytes; the buffer is " + std::to_string(count) + " elements of " +
                       to_string(b.type) + " (" + std::to_string(out.size()) + " bytes)");
    std::memcpy(out.data(), d.data(), out.size());
    return out;
  }
  std::uint64_t state = b.init.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  auto next = [&state] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const bool integer = b.type == Elem::i32 || b.type == Elem::u32 || b.type == Elem::i64 || b.type == Elem::u64;
  for (std::int64_t i = 0; i < count; ++i) {
    double v = 0;
    switch (b.init.kind) {
      case Init::zero: break;
      case Init::constant: v = b.init.a; break;
      case Init::ramp:
        v = b.init.a + b.init.b * static_cast<double>(i);
        if (integer && (v < integer_range(b.type).first || v > integer_range(b.type).second))
          throw InputError(spec.where("buffers." + b.name + ".init.ramp") + ": element " + std::to_string(i) + " would be " +
                           std::to_string(v) + ", more than " + to_string(b.type) + " holds");
        break;
      case Init::random: {
        const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
        v = integer ? std::floor(b.init.a + u * (b.init.b - b.init.a + 1)) : b.init.a + u * (b.init.b - b.init.a);
        if (integer && v > b.init.b) v = b.init.b;
        break;
      }
      case Init::file: break;
    }
    unsigned char* at = out.data() + static_cast<std::size_t>(i) * size;
    switch (b.type == Elem::real ? (p == Precision::f32 ? Elem::f32 : Elem::f64) : b.type) {
      case Elem::f32: { const float x = static_cast<float>(v); std::memcpy(at, &x, 4); break; }
      case Elem::f64: std::memcpy(at, &v, 8); break;
      case Elem::i32: { const auto x = static_cast<std::int32_t>(v); std::memcpy(at, &x, 4); break; }
      case Elem::u32: { const auto x = static_cast<std::uint32_t>(v); std::memcpy(at, &x, 4); break; }
      case Elem::i64: { const auto x = static_cast<std::int64_t>(v); std::memcpy(at, &x, 8); break; }
      case Elem::u64: { const auto x = static_cast<std::uint64_t>(v); std::memcpy(at, &x, 8); break; }
      case Elem::real: break;
    }
  }
  return out;
}

namespace {
double element(Elem type, Precision p, const void* data, std::int64_t i) {
  const auto* at = static_cast<const unsigned char*>(data) + static_cast<std::size_t>(i) * elem_bytes(type, p);
  switch (type == Elem::real ? (p == Precision::f32 ? Elem::f32 : Elem::f64) : type) {
    case Elem::f32: { float x; std::memcpy(&x, at, 4); return x; }
    case Elem::f64: { double x; std::memcpy(&x, at, 8); return x; }
    case Elem::i32: { std::int32_t x; std::memcpy(&x, at, 4); return x; }
    case Elem::u32: { std::uint32_t x; std::memcpy(&x, at, 4); return x; }
    case Elem::i64: { std::int64_t x; std::memcpy(&x, at, 8); return static_cast<double>(x); }
    case Elem::u64: { std::uint64_t x; std::memcpy(&x, at, 8); return static_cast<double>(x); }
    case Elem::real: break;
  }
  return 0;
}
std::string num(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.9g", v);
  return s;
}
}  // namespace

std::string compare(const std::string& buffer, Elem type, Precision p, const void* got, const void* want,
                    std::int64_t count, double abs, double rel) {
  std::int64_t off = 0, first = -1, worst = -1;
  double worst_diff = -1;
  for (std::int64_t i = 0; i < count; ++i) {
    const double g = element(type, p, got, i), w = element(type, p, want, i);
    const double diff = std::fabs(g - w);
    const bool ok = diff <= abs + rel * std::fabs(w) && !std::isnan(g) == !std::isnan(w);
    if (ok) continue;
    ++off;
    if (first < 0) first = i;
    if (!(diff <= worst_diff)) worst_diff = diff, worst = i;
  }
  if (off == 0) return "";
  auto at = [&](std::int64_t i) {
    const double g = element(type, p, got, i), w = element(type, p, want, i);
    return "[" + std::to_string(i) + "]: " + num(g) + " against " + num(w) + " (|diff| " + num(std::fabs(g - w)) +
           " > " + num(abs + rel * std::fabs(w)) + ")";
  };
  std::string s = "buffer `" + buffer + "`: " + std::to_string(off) + " of " + std::to_string(count) +
                  " elements off (tolerance abs " + num(abs) + " + rel " + num(rel) + " x |expected|); the first at " +
                  at(first);
  if (worst != first) s += "; the largest at " + at(worst);
  return s;
}

std::string guard_damage(const std::string& buffer, const unsigned char* zone, std::size_t zone_bytes, std::size_t elem) {
  std::size_t last = zone_bytes;
  for (std::size_t i = zone_bytes; i-- > 0;)
    if (zone[i] != canary) {
      last = i;
      break;
    }
  if (last == zone_bytes) return "";
  const std::size_t elements = last / elem + 1;
  std::string s = "wrote past the end of buffer `" + buffer + "` by " + std::to_string(elements) + " element" +
                  (elements == 1 ? "" : "s");
  if (elements == zone_bytes / elem) s += " or more (the whole guard zone of " + std::to_string(zone_bytes / elem) + " was written)";
  return s;
}

// FIPS 180-4.
std::string sha256(const std::string& data) {
  static const std::uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t block = 0; block < m.size(); block += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (std::uint32_t(static_cast<unsigned char>(m[block + 4 * i])) << 24) |
             (std::uint32_t(static_cast<unsigned char>(m[block + 4 * i + 1])) << 16) |
             (std::uint32_t(static_cast<unsigned char>(m[block + 4 * i + 2])) << 8) |
             std::uint32_t(static_cast<unsigned char>(m[block + 4 * i + 3]));
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t ch = (e & f) ^ (~e & g);
      const std::uint32_t t1 = hh + s1 + ch + k[i] + w[i];
      const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = s0 + maj;
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; ++i) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return out;
}

}  // namespace gpubench::spec
