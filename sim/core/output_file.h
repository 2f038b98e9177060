#pragma once
// Every file roofsim writes goes through OutputFile: the bytes go to a temporary name in the same folder, and only a
// complete file is renamed over the real name. A reader, a full disk or an interruption thus never leaves a cut
// file under the name a user or a sweep would read; the old file, if any, stays until the new one is whole.
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "sim/core/interrupt.h"

namespace roofsim {

// A file that could not be written: what() names the path and the system's reason ("No space left on device").
// The CLI turns it into exit code 1.
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::filesystem::path& path, int error_number);
  OutputError(const std::filesystem::path& path, const std::string& reason);
};

class OutputFile {
 public:
  // Creates the temporary file beside `path`; throws OutputError when it cannot.
  explicit OutputFile(std::filesystem::path path);
  // Without commit(), the temporary is removed and `path` is left as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] std::ostream& stream();
  // Writes out what is buffered, closes and renames the temporary to `path`; throws OutputError naming `path` and the
  // first error of any write, the close or the rename.
  void commit();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  class Buffer;
  std::filesystem::path path_;
  std::filesystem::path temporary_;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
  std::unique_ptr<RemoveOnSignal> remove_on_signal_;
  bool committed_ = false;
};

// `write` fills the stream; the file appears under `path` only once complete. Throws OutputError.
void write_output_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Removes an output an earlier run left that this run does not write (an interrupted run has no trace.json), so that
// a folder never mixes two runs' files. Throws OutputError when the file exists and cannot be removed.
void remove_stale_output(const std::filesystem::path& path);

}  // namespace roofsim
