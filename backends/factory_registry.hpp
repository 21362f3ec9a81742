// A suite's map of backend name -> how to make its operations on that backend, with what else
// the suite records per backend (`Extra`). Filled at start-up by a static Registrar in each API's
// file of the suite, so that adding an API to a suite edits no list. Each suite owns one
// instance, returned by a function of its own (a function-local static: registrars in other
// translation units may run before any namespace-scope object is constructed).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

template <class Factory, class Extra>
class FactoryRegistry {
 public:
  struct Entry {
    Factory factory;
    Extra extra;
  };

  // A second registration under the same name replaces the first (a test may stand in for a backend).
  void add(const std::string& backend, Factory factory, Extra extra = {}) {
    entries_[backend] = Entry{std::move(factory), std::move(extra)};
  }
  // nullptr when `backend` registered nothing.
  const Entry* find(const std::string& backend) const {
    const auto it = entries_.find(backend);
    return it == entries_.end() ? nullptr : &it->second;
  }
  const Factory* factory(const std::string& backend) const {
    const Entry* entry = find(backend);
    return entry ? &entry->factory : nullptr;
  }
  const Extra* extra(const std::string& backend) const {
    const Entry* entry = find(backend);
    return entry ? &entry->extra : nullptr;
  }
  // The backends that registered, by name.
  std::vector<std::string> backends() const {
    std::vector<std::string> names;
    for (const auto& entry : entries_) names.push_back(entry.first);
    return names;
  }

  // Registers at static initialisation, the arguments after the factory making its Extra:
  // `static const Registrar r{registry(), "cuda", make, "cuBLAS", true};`
  struct Registrar {
    template <class... ExtraArgs>
    Registrar(FactoryRegistry& registry, const std::string& backend, Factory factory, ExtraArgs&&... extra) {
      registry.add(backend, std::move(factory), Extra{std::forward<ExtraArgs>(extra)...});
    }
  };

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace gpubench
