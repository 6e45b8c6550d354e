#pragma once
// `predict --calibrate FLEET`'s text: the hosts of the single-factor fit with
// their residuals, then the factors fitted per thread count and per depth
// bucket beside the RMS residual the single factor leaves on the same samples.
#include <string>

#include "predict/fleet_fit.hpp"

namespace moesweep {

std::string fleet_fit_text(const Fleet& fleet, const FleetFit& fit);
std::string calibration_fits_text(const CalibrationFits& fits);

}  // namespace moesweep
