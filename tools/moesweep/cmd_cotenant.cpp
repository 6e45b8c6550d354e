// `moesweep __cotenant` (hidden): the co-tenant load a sweep starts on the
// CPUs a point leaves free (sweep/cotenant.hpp); not for direct use.
#include "commands.hpp"
#include "sweep/cotenant_load.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {

void add_cotenant_command(CLI::App& app, CommandRunner& run) {
  auto load = std::make_shared<CotenantLoad>();
  auto cpus = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("__cotenant", "a sweep's co-tenant load (internal)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--kind", load->kind, "stream, compute or cmd")->required();
  cmd->add_option("--cpus", *cpus, "CPUs of the load, one worker each");
  cmd->add_option("--command", load->command, "cmd: the shell command");
  cmd->callback([load, cpus, &run] {
    run = [load, cpus] {
      if (!cpus->empty())
        for (int64_t cpu : parse_int_list(*cpus, "--cpus"))
          load->cpus.push_back(static_cast<int>(cpu));
      return run_cotenant_load(*load);
    };
  });
}

}  // namespace moesweep::cli
