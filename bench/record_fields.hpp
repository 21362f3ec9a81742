// The fields of a run's records, written once. Each names its JSON key and CSV column, its type
// and meaning (the published JSON Schema, reports/gpubench_reports/records.schema.json, which the Python reader
// follows), and how it is read from a point; the JSON entries, the CSV rows, the table's columns
// and the schema all iterate over this one table, so that a new field is one entry here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"

namespace gpubench {

// What one record row is about: a point, and (for a repetition's fields) one of its repetitions;
// `outcome` is null for a failed repetition (a failed point's are all failed).
struct RecordRow {
  const PointResult& point;
  const Outcome* outcome = nullptr;
  std::size_t repetition = 0;
  const nlohmann::json* context = nullptr;  // the run's (date, commit, host), where known
};

struct RecordField {
  enum class Scope {
    point,       // the same on every entry of a point
    repetition,  // a repetition's own (JSON: its "iteration" entry; CSV: its row)
    layout,      // Google Benchmark's entry layout, written by the JSON writer itself (in the schema only)
  };
  std::string json;         // the key in JSON entries ("": not in JSON)
  std::string csv;          // the CSV column ("": not in the CSV)
  std::string type;         // the JSON Schema type: "string", "number", "integer", "boolean", "object", "array"
  std::string description;  // one line, for the schema
  Scope scope = Scope::point;
  // The value (null: none here: the JSON key left out, the CSV cell empty).
  std::function<nlohmann::json(const RecordRow&)> value = nullptr;
  std::string column;  // the table's header ("": not in the table)
  // The table's cell for a verified point (with `column`).
  std::function<std::string(const PointResult&)> cell = nullptr;
  bool energy_column = false;  // the column is shown only with --energy
};

// Every field, in the CSV's column order.
const std::vector<RecordField>& record_fields();
// The fields of `scope`.
std::vector<const RecordField*> record_fields(RecordField::Scope scope);

// The fields every JSON entry of point `p` carries: its point-scope fields, and a point across
// several devices names each band's device (and, across ranks, its host).
nlohmann::json point_json(const PointResult& p);

// The JSON Schema (2020-12) of a records file (gpubench run --format json), from the fields.
nlohmann::json records_schema();

}  // namespace gpubench
