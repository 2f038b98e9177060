// Outputs are written whole or not at all: --out is checked and locked before any simulation, a write error is exit 1
// naming the file and the system's reason without a "wrote" line or a cut file, and a second run into a folder in use
// fails at once. Input files that are not regular files are exit 2 naming the path.
#include <doctest/doctest.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string>

#include "tests/cli/roofsim_process.h"
#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A tmpfs of 64 KiB mounted on a scratch folder for one test, unmounted at its end; `mounted` is false where the
// test may not mount (no CAP_SYS_ADMIN).
struct SmallFilesystem {
  std::filesystem::path dir;
  bool mounted = false;
  std::string why_not;

  explicit SmallFilesystem(std::filesystem::path at) : dir(std::move(at)) {
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") == 0) {
      mounted = true;
    } else {
      why_not = std::strerror(errno);
    }
  }
  ~SmallFilesystem() {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
  }
  SmallFilesystem(const SmallFilesystem&) = delete;
  SmallFilesystem& operator=(const SmallFilesystem&) = delete;

  // Writes a filler file until the filesystem refuses more bytes.
  void fill() const {
    std::FILE* filler = std::fopen((dir / "filler").c_str(), "wb");
    REQUIRE(filler != nullptr);
    const std::string block(4096, 'x');
    while (std::fwrite(block.data(), 1, block.size(), filler) == block.size() && std::fflush(filler) == 0) {
    }
    std::fclose(filler);
  }
};

}  // namespace

TEST_CASE("--out naming an existing file is exit 2 before any simulation, for every command that writes") {
  const auto dir = test::scratch_dir("out-is-a-file");
  const auto file = test::write_file(dir / "results", "a file, not a folder\n");
  const auto sweep = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const std::string out = " --out " + test::quoted(file);
  // The GPT-3 block would simulate for many seconds: the check comes first, so nothing is printed.
  for (const std::string& command : std::vector<std::string>{
           "run --hw H100-SXM5 --workload gpt3_175b_block_prefill", "run --hw 8xH100-NVSwitch --workload tp_decode",
           "roofline --hw H100-SXM5 --workload gemm", "dram --hw HBM2-2000 --pattern random --bytes 512MiB",
           "collective --hw 8xH100-NVSwitch", "sweep " + test::quoted(sweep)}) {
    const auto result = test::run_roofsim(command + out);
    INFO(command << "\nstderr: " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(contains(result.err, file.string() + ": exists and is not a folder"));
    CHECK(result.out.empty());
  }
  CHECK(test::read_file(file) == "a file, not a folder\n");
}

TEST_CASE("a full filesystem: exit 1 naming the file and the reason, no \"wrote\", no cut or temporary file") {
  const auto dir = test::scratch_dir("full-filesystem");
  const auto mount_point = dir / "small";
  std::filesystem::create_directories(mount_point);
  const SmallFilesystem small(mount_point);
  if (!small.mounted) {
    MESSAGE("skipped: cannot mount a 64 KiB tmpfs here (" << small.why_not << "); the file-size limit case below "
                                                          << "still covers the write errors");
    return;
  }
  small.fill();
  struct Case {
    std::string command;
    std::string first_file;
  };
  for (const auto& [command, first_file] :
       {Case{"roofline --hw H100-SXM5 --workload gpt3_175b_block_prefill", "report.json"},
        Case{"run --hw H100-SXM5 --workload gemm --set dram.model=simple", "report.json"},
        Case{"dram --hw HBM2-2000 --pattern stream --bytes 1MiB", "dram.json"},
        Case{"collective --hw 8xH100-NVSwitch --max 1MB", "collective.csv"}}) {
    const auto out = mount_point / "out";
    const auto result = test::run_roofsim(command + " --out " + test::quoted(out));
    INFO(command << "\nstderr: " << result.err);
    CHECK(result.exit_code == 1);
    CHECK(contains(result.err, "cannot write " + (out / first_file).string() + ": No space left on device"));
    CHECK_FALSE(contains(result.out, "wrote"));
    CHECK_FALSE(std::filesystem::exists(out / first_file));
    CHECK(test::hidden_files(out).empty());
    std::filesystem::remove_all(out);
  }
}

TEST_CASE("a file-size limit: the write error is exit 1, and the previous file stays whole under its name") {
  const auto dir = test::scratch_dir("file-size-limit");
  const auto out = dir / "out";
  std::filesystem::create_directories(out);
  test::write_file(out / "report.json", "the previous report\n");
  // 16 blocks of 512 or 1024 bytes (dash or bash) hold far less than this report.json of some 37 kB; SIGXFSZ ignored,
  // the write fails with EFBIG instead of killing the process.
  const std::string command = "ulimit -f 16; trap '' XFSZ; exec '" + test::roofsim_binary().string() +
                              "' roofline --hw H100-SXM5 --workload gpt3_175b_block_prefill --out '" + out.string() +
                              "' >'" + (dir / "stdout").string() + "' 2>'" + (dir / "stderr").string() + "'";
  const int status = std::system(("sh -c \"" + command + "\"").c_str());
  REQUIRE(WIFEXITED(status));
  const auto err = test::read_file(dir / "stderr");
  INFO("stderr: " << err);
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(contains(err, "cannot write " + (out / "report.json").string() + ": File too large"));
  CHECK_FALSE(contains(test::read_file(dir / "stdout"), "wrote"));
  CHECK(test::read_file(out / "report.json") == "the previous report\n");
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("a second run into a folder in use fails at once, and the lock goes with the first run") {
  const auto dir = test::scratch_dir("output-lock");
  const auto out = dir / "out";
  auto first = test::start_roofsim(
      {"run", "--hw", "H100-SXM5", "--workload", "gpt3_175b_block_prefill", "--out", out.string()}, dir, "first");
  REQUIRE(first.pid > 0);
  REQUIRE(test::wait_for_file(out / ".roofsim.lock", 60));

  const auto second = test::run_roofsim("roofline --hw H100-SXM5 --workload gemm --out " + test::quoted(out));
  INFO("stderr: " << second.err);
  CHECK(second.exit_code == 2);
  CHECK(contains(second.err, out.string() + ": another roofsim run (pid " + std::to_string(first.pid) + ")"));
  CHECK(second.out.empty());
  // Whole sweeps, shards and merges take the same lock.
  const auto sweep = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  CHECK(test::run_roofsim("sweep " + test::quoted(sweep) + " --out " + test::quoted(out)).exit_code == 2);
  CHECK(test::run_roofsim("sweep " + test::quoted(sweep) + " --shard 0/2 --out " + test::quoted(out)).exit_code == 2);

  ::kill(first.pid, SIGTERM);
  const auto ending = test::wait_for_roofsim(first, 60);
  REQUIRE(ending.has_value());
  CHECK(ending->code == 143);
  CHECK_FALSE(std::filesystem::exists(out / ".roofsim.lock"));
  const auto third = test::run_roofsim("roofline --hw H100-SXM5 --workload gemm --out " + test::quoted(out));
  CHECK(third.exit_code == 0);
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("the shards of one sweep share their folder, and no lock stays after them") {
  const auto dir = test::scratch_dir("shared-lock");
  const auto sweep = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto out = dir / "out";
  auto shard0 = test::start_roofsim({"sweep", sweep.string(), "--shard", "0/2", "--out", out.string()}, dir, "s0");
  auto shard1 = test::start_roofsim({"sweep", sweep.string(), "--shard", "1/2", "--out", out.string()}, dir, "s1");
  const auto end0 = test::wait_for_roofsim(shard0, 120);
  const auto end1 = test::wait_for_roofsim(shard1, 120);
  INFO("stderr: " << test::read_file(dir / "s0.stderr") << test::read_file(dir / "s1.stderr"));
  REQUIRE(end0.has_value());
  REQUIRE(end1.has_value());
  CHECK(end0->code == 0);
  CHECK(end1->code == 0);
  CHECK(test::run_roofsim("sweep merge " + test::quoted(out)).exit_code == 0);
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("input files: a folder, /dev/zero, a FIFO or a name over 255 bytes is exit 2 naming the path") {
  const auto dir = test::scratch_dir("input-files");
  const auto fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const std::string long_name = (dir / std::string(300, 'n')).string();
  struct Case {
    std::string path;
    std::string says;
  };
  for (const auto& [path, says] :
       {Case{dir.string(), "is a folder"}, Case{"/dev/zero", "is not a regular file"},
        Case{fifo.string(), "is not a regular file"}, Case{long_name, "File name too long"}}) {
    const auto result =
        test::run_roofsim("dram --hw HBM2-2000 " + test::quoted(path) + " --out " + test::quoted(dir / "out"));
    INFO(path << "\nstderr: " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(contains(result.err, path + ": "));
    CHECK(contains(result.err, says));
  }
  // Any filesystem error about a path given as input is exit 2 naming it, never an internal error.
  const auto result = test::run_roofsim("run --hw " + test::quoted(long_name) + " --workload gemm");
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, long_name));
  CHECK_FALSE(contains(result.err, "internal error"));
}
