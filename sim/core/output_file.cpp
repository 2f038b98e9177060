#include "sim/core/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <streambuf>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace roofsim {

namespace {

std::string describe(const std::filesystem::path& path, const std::string& reason) {
  return "cannot write " + path.string() + ": " + reason;
}

// Unique among this process's writers and, through the pid, among processes writing into the same folder.
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static unsigned long long counter = 0;
  const auto name =
      "." + path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return path.parent_path() / name;
}

}  // namespace

OutputError::OutputError(const std::filesystem::path& path, int error_number)
    : std::runtime_error(describe(path, std::strerror(error_number))) {}

OutputError::OutputError(const std::filesystem::path& path, const std::string& reason)
    : std::runtime_error(describe(path, reason)) {}

// A stream buffer over a file descriptor that keeps the first write error's errno (std::ofstream loses it).
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(kBytes) { setp(data_.data(), data_.data() + data_.size()); }
  ~Buffer() override { close(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  [[nodiscard]] int error() const { return error_; }

  // Closes the descriptor; returns false (and keeps errno) when close reports an error of a deferred write.
  bool close() {
    if (fd_ < 0) return error_ == 0;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && error_ == 0) error_ = errno;
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr std::size_t kBytes = 1 << 16;

  bool drain() {
    if (error_ != 0 || fd_ < 0) return false;
    const char* next = pbase();
    auto left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0) {
      const ssize_t written = ::write(fd_, next, left);
      if (written < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      next += written;
      left -= static_cast<std::size_t>(written);
    }
    setp(data_.data(), data_.data() + data_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::vector<char> data_;
};

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)), temporary_(temporary_beside(path_)) {
  remove_on_signal_ = std::make_unique<RemoveOnSignal>(temporary_);
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw OutputError(path_, errno);
  buffer_ = std::make_unique<Buffer>(fd);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::~OutputFile() {
  if (committed_) return;
  stream_.reset();
  buffer_.reset();
  ::unlink(temporary_.c_str());
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

void OutputFile::commit() {
  stream_->flush();
  if (!buffer_->close()) throw OutputError(path_, buffer_->error());
  if (stream_->fail()) throw OutputError(path_, "the writer failed to format its output");
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) throw OutputError(path_, errno);
  committed_ = true;
}

void write_output_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  OutputFile file(path);
  write(file.stream());
  file.commit();
}

void remove_stale_output(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw OutputError(path, errno);
}

}  // namespace roofsim
