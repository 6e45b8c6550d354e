#include "serve_traffic_options.hpp"

#include <fmt/format.h>

#include "serve/arrival_schedule.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {

std::vector<double> parse_rates(const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : split_list(text)) {
    const std::optional<double> v =
        item == "inf" ? std::optional<double>(kInfiniteRate) : parse_decimal(item);
    if (!v || !(*v > 0))
      throw UserError(fmt::format("--request-rate '{}' is not a rate", item),
                      "requests per second as decimal numbers, comma-separated: 0.5,1,2 (inf: "
                      "all at once)",
                      "pass e.g. --request-rate 0.5,1,2");
    out.push_back(*v);
  }
  return out;
}

void TrafficCli::add_to(CLI::App& cmd) {
  TrafficOptions& o = options;
  cmd.add_option("--request-rate", rates,
                 "open-loop workloads: requests/s, a list (0.5,1,2; inf: all at once); arrivals "
                 "do not wait for answers");
  cmd.add_option("--burstiness", o.burstiness,
                 "arrival gaps gamma-distributed with this shape (1: Poisson; < 1 burstier)")
      ->capture_default_str();
  cmd.add_option("--max-concurrency", o.max_concurrency,
                 "at most this many requests in flight (0: no cap but 256)")
      ->capture_default_str();
  cmd.add_option("--duration", o.duration_s, "seconds of arrivals per rate (0: no limit)");
  cmd.add_option("--num-requests", o.num_requests,
                 fmt::format("requests per rate (default {} unless --duration)", kDefaultRequests));
  cmd.add_option("--slo", slos,
                 "objectives, e.g. ttft_p99=2000ms,tpot_p99=200ms (ttft, tpot, itl, e2e; mean, "
                 "p50, p90, p95, p99): goodput and whether each rate meets them");
  cmd.add_flag("--find-capacity", o.find_capacity,
               "search the highest rate meeting every --slo (starts from the server's "
               "throughput, or from one --request-rate)");
  cmd.add_option("--capacity-budget", o.capacity.budget_s,
                 "seconds the capacity search may run (checked before each rate)")
      ->capture_default_str();
  cmd.add_option("--capacity-precision", o.capacity.precision,
                 "stop when the capacity interval's ends are this close (0.1: 10%)")
      ->capture_default_str();
  cmd.add_flag("--save-tokens", o.save_tokens,
               "keep every token's arrival time (and id) in requests.jsonl");
  cmd.add_option("--format", formats,
                 "also write each open-loop rate as: vllm (vLLM bench serve's result JSON, in "
                 "vllm/)");
}

TrafficOptions TrafficCli::parse() const {
  TrafficOptions o = options;
  o.rates = parse_rates(rates);
  o.slos = parse_slos(slos);
  return o;
}

}  // namespace moesweep::cli
