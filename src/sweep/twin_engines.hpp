#pragma once
// The engines of a sweep and the twins they load (model/twin_layout.hpp).
#include <string>
#include <vector>

#include "engine/engine_registry.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

// `e`'s reads: what `engine add` recorded (`registered`), else its worker's
// hello (an engine registered before engines recorded it); none for another
// program's binary (it constrains no layout).
void fill_engine_reads(EngineChoice& e, const RegisteredEngine& registered);

// Each twin's layout (the newest every engine measuring it reads) and the
// engines that cannot load it at all (left out of its points, each named in
// the plan's warnings with the reason). UserError when no engine loads a twin,
// or when a twin's axes need what its layout lacks (a routing skew on a V2 router).
void choose_twin_layouts(Plan& plan);

}  // namespace moesweep
