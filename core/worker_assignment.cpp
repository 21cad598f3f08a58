// A standby worker's run assignment (see worker_assignment.h).
#include "core/worker_assignment.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace deepladder {

std::string encodeAssignment(const WorkerAssignment& assignment) {
  nlohmann::json json;
  json["args"] = assignment.args;
  json["env"] = assignment.env;
  json["stderr"] = assignment.stderr_path;
  return json.dump();
}

WorkerAssignment decodeAssignment(const std::string& line) {
  WorkerAssignment out;
  try {
    const nlohmann::json json = nlohmann::json::parse(line);
    out.args = json.at("args").get<std::vector<std::string>>();
    out.env = json.value("env", std::map<std::string, std::string>{});
    out.stderr_path = json.value("stderr", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("standby assignment on stdin: ") + e.what() +
                    ". Expected one JSON line {\"args\": [...], \"env\": {...}, \"stderr\": "
                    "\"PATH\"}, as the scheduler writes it");
  }
  return out;
}

bool readAtLoadTime(const std::string& variable) {
  for (const char* prefix : {"OMP_", "GOMP_", "KMP_", "MKL_", "LD_", "MALLOC_", "GLIBC_"})
    if (variable.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace deepladder
