// The walkthrough as a Jupyter notebook (.ipynb, nbformat 4): the book's classes, then every
// stage of the configuration as a code cell that prints it, in the page's order, under a
// Markdown cell per section. Read from the stage and section tables and the configuration
// only (nothing is run): the CLI's --format ipynb, the JS API's notebook() and the page's
// "Open as a notebook" share it.
#pragma once

#include <string>

#include "config.hpp"

namespace ca {

// The notebook's JSON text. Each stage's cell carries {"stage": id} in its metadata.
// Precondition: validate(config) is "".
std::string notebook(const Config& config);

// The code cell of one stage: its PyTorch line, then print() of what it computed (the variable
// its last line assigns, or its last expression).
std::string print_cell(const std::string& code);

}  // namespace ca
