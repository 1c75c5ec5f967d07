#pragma once
// bench --input: the file is read once per family the selection holds. With --algo=all the
// families the file does not fit are left out (a (2, n) .npy is a dot dataset only, a one-column
// text file a sum dataset only; a raw file with an even count fits both); it is an error only
// when it fits none (the first family's error is reported). With an explicit --algo list every
// family must fit.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/family.hpp"
#include "datasets/dataset.hpp"

namespace accsum::cli {

// Each family's reading of the file (its descriptor's reader), in the order given. `options`:
// data options given with --input (each marked for_files by some family); a family that does
// not take one of them does not fit the file.
std::vector<std::unique_ptr<Dataset>> read_input_families(const std::string& path, const Params& options,
                                                          const std::vector<const FamilyDescriptor*>& families,
                                                          bool skip_unfit);

// True when some family takes the data option `name` with --input (DataOption::for_files).
bool option_for_files(const std::string& name);

}  // namespace accsum::cli
