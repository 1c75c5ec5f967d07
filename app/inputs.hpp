#pragma once
// --input: the files a run reads and each family's reading of them. The file list is one list
// (datasets/npy_input.hpp input_paths: each element of "A.npy,B.npy", or the one file), and
// every element of it is protected from the run's outputs (app/output.hpp check_distinct). With
// --algo=all the families the file does not fit are left out (a (2, n) .npy is a dot dataset
// only, a one-column text file a sum dataset only; a raw file with an even count fits both);
// it is an error only when it fits none (the first family's error is reported). With an
// explicit --algo list every family must fit. Families are read one at a time, each after the
// memory pre-check (app/memcheck.hpp) has judged the files from their sizes and headers.
#include <memory>
#include <string>
#include <vector>

#include "app/output.hpp"
#include "core/frame/family.hpp"
#include "datasets/dataset.hpp"

namespace accsum::cli {

// Every file an --input names, as inputs for check_outputs: each element of its list, and the
// whole text when it differs (empty input: none).
std::vector<NamedPath> input_files(const std::string& input);

// The family's reading of the file (its descriptor's reader). `options`: data options given
// with --input (each marked for_files by some family); a family that does not take one of them
// does not fit the file.
std::unique_ptr<Dataset> read_input(const std::string& path, const Params& options, const FamilyDescriptor& family);

// True when some family takes the data option `name` with --input (DataOption::for_files).
bool option_for_files(const std::string& name);

}  // namespace accsum::cli
