// Table-driven tests of every transition in SEMANTICS.md, over the full Cartesian products.
#include <array>
#include <catch2/catch_test_macros.hpp>
#include <tuple>
#include <vector>

#include "rop/runtime/transitions.h"

using namespace rop::runtime;

namespace {
constexpr std::array<Outcome, 4> kTerminal = {Outcome::Present, Outcome::Dropped, Outcome::Failed,
                                              Outcome::Suppressed};
constexpr std::array<Outcome, 5> kAll = {Outcome::Unresolved, Outcome::Present, Outcome::Dropped,
                                         Outcome::Failed, Outcome::Suppressed};
constexpr auto R = InputMode::Required;
constexpr auto O = InputMode::Optional;
using V = InputVerdict;
}  // namespace

TEST_CASE("call input algebra: one input, required/optional x 5 outcomes",
          "[runtime][transitions]") {
    const std::vector<std::tuple<InputMode, Outcome, InputVerdict>> rows = {
        {R, Outcome::Unresolved, V::Wait},     {O, Outcome::Unresolved, V::Wait},
        {R, Outcome::Present, V::Run},         {O, Outcome::Present, V::Run},
        {R, Outcome::Dropped, V::Drop},        {O, Outcome::Dropped, V::Run},  // "missing"
        {R, Outcome::Failed, V::Suppress},     {O, Outcome::Failed, V::Suppress},
        {R, Outcome::Suppressed, V::Suppress}, {O, Outcome::Suppressed, V::Suppress},
    };
    for (const auto& [mode, outcome, expected] : rows) {
        const std::array<InputMode, 1> modes{mode};
        const std::array<Outcome, 1> outcomes{outcome};
        CAPTURE(static_cast<int>(mode), to_string(outcome));
        CHECK(call_input_verdict(modes, outcomes) == expected);
    }
}

TEST_CASE("call input algebra: two inputs, every mode x outcome pair, order-free",
          "[runtime][transitions]") {
    // Oracle restated from SEMANTICS.md: wait < failure beats drop < required drop < run.
    auto oracle = [](InputMode m1, Outcome o1, InputMode m2, Outcome o2) {
        if (o1 == Outcome::Unresolved || o2 == Outcome::Unresolved) return V::Wait;
        auto bad = [](Outcome o) { return o == Outcome::Failed || o == Outcome::Suppressed; };
        if (bad(o1) || bad(o2)) return V::Suppress;
        if ((m1 == R && o1 == Outcome::Dropped) || (m2 == R && o2 == Outcome::Dropped)) {
            return V::Drop;
        }
        return V::Run;
    };
    int rows = 0;
    for (InputMode m1 : {R, O}) {
        for (InputMode m2 : {R, O}) {
            for (Outcome o1 : kAll) {
                for (Outcome o2 : kAll) {
                    const std::array<InputMode, 2> modes{m1, m2}, swapped_modes{m2, m1};
                    const std::array<Outcome, 2> outs{o1, o2}, swapped{o2, o1};
                    CAPTURE(to_string(o1), to_string(o2));
                    CHECK(call_input_verdict(modes, outs) == oracle(m1, o1, m2, o2));
                    CHECK(call_input_verdict(swapped_modes, swapped) ==
                          call_input_verdict(modes, outs));
                    ++rows;
                }
            }
        }
    }
    CHECK(rows == 100);
    CHECK(outcome_of(V::Suppress) == Outcome::Suppressed);
    CHECK(outcome_of(V::Drop) == Outcome::Dropped);
}

TEST_CASE("filter: source outcome x predicate", "[runtime][transitions]") {
    const std::vector<std::tuple<Outcome, bool, Outcome, bool>> rows = {
        // source, keep, output, predicate runs
        {Outcome::Present, true, Outcome::Present, true},
        {Outcome::Present, false, Outcome::Dropped, true},
        {Outcome::Dropped, true, Outcome::Dropped, false},
        {Outcome::Dropped, false, Outcome::Dropped, false},
        {Outcome::Failed, true, Outcome::Failed, false},
        {Outcome::Failed, false, Outcome::Failed, false},
        {Outcome::Suppressed, true, Outcome::Suppressed, false},
        {Outcome::Suppressed, false, Outcome::Suppressed, false},
    };
    for (const auto& [source, keep, output, runs] : rows) {
        CAPTURE(to_string(source), keep);
        CHECK(filter_outcome(source, keep) == output);
        CHECK(filter_runs_predicate(source) == runs);
    }
}

TEST_CASE("broadcast: every ancestor outcome reaches the descendant", "[runtime][transitions]") {
    for (Outcome o : kTerminal) CHECK(broadcast_outcome(o) == o);
}

TEST_CASE("expand: upstream outcome x expand report", "[runtime][transitions]") {
    const std::vector<std::pair<Outcome, ExpansionState>> rows = {
        {Outcome::Present, ExpansionState::Pending},  // the UDF runs and decides
        {Outcome::Dropped, ExpansionState::Dropped},
        {Outcome::Failed, ExpansionState::Failed},
        {Outcome::Suppressed, ExpansionState::Failed},
    };
    for (const auto& [upstream, state] : rows) {
        const std::array<InputMode, 1> modes{R};
        const std::array<Outcome, 1> outs{upstream};
        CHECK(expansion_from_inputs(call_input_verdict(modes, outs)) == state);
    }
    CHECK(expansion_from_report(true) == ExpansionState::Succeeded);
    CHECK(expansion_from_report(false) == ExpansionState::Failed);
}

TEST_CASE("reduce: expansion state x member outcomes", "[runtime][transitions]") {
    using RV = ReduceVerdict;
    const std::array<ExpansionState, 4> states = {ExpansionState::Pending,
                                                  ExpansionState::Succeeded,
                                                  ExpansionState::Dropped, ExpansionState::Failed};
    // Every member list of length 0..2 over all five outcomes, under every expansion state.
    std::vector<std::vector<Outcome>> lists = {{}};
    for (Outcome a : kAll) {
        lists.push_back({a});
        for (Outcome b : kAll) lists.push_back({a, b});
    }
    int rows = 0;
    for (ExpansionState st : states) {
        for (const auto& members : lists) {
            RV expected;
            if (st == ExpansionState::Pending) {
                expected = RV::Wait;
            } else if (st == ExpansionState::Dropped) {
                expected = RV::Drop;
            } else if (st == ExpansionState::Failed) {
                expected = RV::Suppress;
            } else {
                bool wait = false, bad = false;
                for (Outcome m : members) {
                    wait = wait || m == Outcome::Unresolved;
                    bad = bad || m == Outcome::Failed || m == Outcome::Suppressed;
                }
                expected = wait ? RV::Wait : bad ? RV::Suppress : RV::Run;
            }
            CAPTURE(to_string(st), members.size());
            CHECK(reduce_verdict(st, members) == expected);
            ++rows;
        }
    }
    CHECK(rows == 4 * 31);
    // Spot rows from the text: DROPPED children left out (still Run), zero survivors -> Run.
    const std::vector<Outcome> dropped_only = {Outcome::Dropped, Outcome::Dropped};
    CHECK(reduce_verdict(ExpansionState::Succeeded, dropped_only) == RV::Run);
    CHECK(reduce_verdict(ExpansionState::Succeeded, {}) == RV::Run);
    CHECK(outcome_of(RV::Drop) == Outcome::Dropped);
    CHECK(outcome_of(RV::Suppress) == Outcome::Suppressed);
}

TEST_CASE("item publication: current x incoming x same value", "[runtime][transitions]") {
    for (Outcome current : kAll) {
        for (Outcome incoming : kAll) {
            for (bool same : {false, true}) {
                Publication expected;
                if (incoming == Outcome::Unresolved) {
                    expected = Publication::Conflict;
                } else if (current == Outcome::Unresolved) {
                    expected = Publication::Accept;
                } else if (current == incoming && same) {
                    expected = Publication::Duplicate;
                } else {
                    expected = Publication::Conflict;
                }
                CAPTURE(to_string(current), to_string(incoming), same);
                CHECK(publish_item(current, incoming, same) == expected);
            }
        }
    }
}

TEST_CASE("grain phases: every phase x event pair", "[runtime][transitions]") {
    using P = GrainPhase;
    using E = GrainEvent;
    const std::array<P, 4> phases = {P::Waiting, P::Ready, P::InFlight, P::Sealed};
    const std::array<E, 6> events = {E::InputsRunnable, E::Resolve, E::Reserve,
                                     E::SuppressQueued, E::Commit,  E::Recover};
    // The listed transitions; every other pair is rejected.
    const std::vector<std::tuple<P, E, P>> listed = {
        {P::Waiting, E::InputsRunnable, P::Ready}, {P::Waiting, E::Resolve, P::Sealed},
        {P::Ready, E::Reserve, P::InFlight},       {P::Ready, E::SuppressQueued, P::Sealed},
        {P::InFlight, E::Commit, P::Sealed},       {P::InFlight, E::Recover, P::Ready},
    };
    int accepted = 0, rejected = 0;
    for (P phase : phases) {
        for (E event : events) {
            std::optional<P> expected;
            for (const auto& [p, e, next] : listed) {
                if (p == phase && e == event) expected = next;
            }
            CAPTURE(to_string(phase), to_string(event));
            CHECK(grain_transition(phase, event) == expected);
            (expected ? accepted : rejected)++;
        }
    }
    CHECK(accepted == 6);
    CHECK(rejected == 18);
    for (E event : events) CHECK_FALSE(grain_transition(P::Sealed, event).has_value());
}
