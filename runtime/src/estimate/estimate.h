// --estimate (docs/runtime.md "Estimates"): run the real pipeline on a stratified sample of the
// roots, fit each Call's batch cost, and replay the whole input in virtual time (simulate.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "estimate/simulate.h"
#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::estimate {

struct EstimateSettings {
    double sample_fraction = 0.02;  // --sample 2%
    std::size_t min_sample = 3;
    std::uint32_t cores = 0;  // --cores; 0: this machine's
    std::string json_path;    // --estimate-json; empty: none
    // The count pass's time: this share of the makespan the sample predicts, but at least
    // count_floor_s (a short run's 2% would count next to nothing); then the roots it has
    // started finish. count_share 0: no pass.
    double count_share = 0.02;
    double count_floor_s = 0.1;
    // The roots in flight when the pass stops admitting get as long again as the pass, but at
    // least this; an expand still running then is stopped, its root left uncounted.
    std::chrono::nanoseconds count_give_up = std::chrono::seconds(1);
};

// The sample's root indexes, in source order: max(min_sample, fraction x roots) of them (at most
// all), from up to 4 strata of equal root counts by size (sizes[i]: root i's bytes) or, with no
// sizes, by source order; at least one root from each stratum, spread evenly inside it.
std::vector<std::size_t> choose_sample(std::size_t roots, const std::vector<std::uint64_t>& sizes,
                                       double fraction, std::size_t min_sample);

// Least squares of seconds = a + b x grains over (grains, seconds) points, a and b clamped >= 0
// (one batch size only: a = 0, b = mean seconds per grain).
std::pair<double, double> fit_cost(const std::vector<std::pair<double, double>>& points);

// Each of `roots` roots' weight for the simulation: the children one sampled root had over the
// sample's mean, each sampled root standing for as many roots as the others (within one), in
// an order shuffled with a seeded generator; their mean is exactly 1. Empty when no child was
// counted.
std::vector<double> root_weights(const std::vector<std::uint64_t>& children, std::size_t roots,
                                 std::uint64_t seed);

// 0 .. n-1 in an order whose every prefix is spread evenly over them (the middle, then the
// middles of the halves, of the quarters ...): the count pass's order, so that a pass cut short
// has counted roots from all over the source.
std::vector<std::size_t> spread_order(std::size_t n);

// Each root's weight once the count pass has counted the children of some (counts[i]; the
// sample's among them): a counted root's children, or for the others their file's bytes times
// the counted roots' children per byte (sizes: every root's, or empty), else a counted root's
// children (each counted root standing for an equal share, in a seeded order); over the mean
// children of the sampled roots (`sample`), which the model's fan-out is. Empty when no root
// was counted or the sample had no children.
std::vector<double> count_weights(const std::vector<std::optional<std::uint64_t>>& counts,
                                  const std::vector<std::uint64_t>& sample,
                                  const std::vector<std::uint64_t>& sizes, std::uint64_t seed);

// Whether the roots weigh by their counted children (count_weights) rather than by their files'
// bytes: with no sizes, or when the counted roots' children are not all alike. A document's
// pages are its work whatever its bytes (often mostly fonts); where every root has the same
// children (a video's two scenes) they say nothing of the work, and the bytes (its length) do.
bool weigh_by_children(const std::vector<std::optional<std::uint64_t>>& counts,
                       const std::vector<std::uint64_t>& sizes);

// The relative half-width of the mean fan-out's range: 2 standard errors of the children per
// sampled root (finite population correction for a sample of `roots`) over their mean; nullopt
// with fewer than 2 roots or no children.
std::optional<double> fanout_spread(const std::vector<std::uint64_t>& children, std::size_t roots,
                                    double fanout);

// The relative half-width of every Call's cost's range: for each sampled root (by its ordinal
// in the sample), what its Grains' batches took (BatchRecord::roots; each Grain's share of its
// batch: its root's weight in `weights` for an expand, else an equal share) over what `model`
// gives the same batches, shared the same way; the 95% Student's t quantile (4.3 for 3 roots,
// 2.0 beyond 31) times the standard error of that ratio, over its mean (finite population
// correction for a sample of `roots`). nullopt with fewer than 2 roots measured.
std::optional<double> cost_spread(const Plan& plan, const SimModel& model, const RunReport& sample,
                                  const std::vector<double>& weights, std::size_t roots);

// The model a sample run's report gives (keep_batches on): per Call its fitted cost, a filter's
// kept share, an expand's children per Grain (Grains of its child Domain's busiest Call over its
// own), every item's bytes (the peak live bytes per live item).
SimModel fit_model(const Plan& plan, const RunReport& sample);

// The whole of --estimate: reads every root of `source`, runs the sample through `plan` with
// `base` (its sinks and journal dropped), predicts the full run and the best settings for the
// bottleneck, prints the table on `out`. Returns the binary's exit status.
int run_estimate(const Plan& plan, RootSource& source, const RunOptions& base,
                 const EstimateSettings& settings, std::ostream& out, std::ostream& err);

// What --estimate-json files say they are ("format").
inline constexpr const char* kPredictionFormat = "rop-estimate-1";

// An --estimate-json file, for a run of `plan` over `roots` roots (nullopt: as many as the
// estimate was made for): its work and times scaled by roots / the estimate's roots. Throws
// std::invalid_argument naming the file and what is wrong: unreadable, not JSON, not an
// estimate, a field missing, or another pipeline's (its Calls are not this plan's).
RunPrediction read_prediction(const std::string& path, const Plan& plan,
                              std::optional<std::size_t> roots);

}  // namespace rop::runtime::estimate
