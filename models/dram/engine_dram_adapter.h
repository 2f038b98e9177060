#pragma once
// The detailed DRAM model under the engine: DramInterface (models/kernel/dram_interface.h) served by the
// controller of every channel of the device (DramDevice). A chunk goes to the device as one request; the device
// splits it by the configured address mapping into the parts that fall in one channel, bank and row, and each
// channel schedules a part's bursts in one decision, so the events per chunk do not grow with its bursts.
//
// Timing: a request completes when the controller has moved its last data beat, plus the part of the device's
// unloaded latency (`dram.latency`) that lies outside the DRAM: latency - (tRCD + tCL + one burst), the on-chip path
// from a unit to the controller and back. So an unloaded row-miss read takes `dram.latency`, as in the simple model.
// When a channel's queue is full the request waits here, in arrival order, until the device has room.
//
// Attribution: each request carries the op that issued it; every part the controller schedules is charged to that
// op (bursts, rows opened, bus turnarounds, refreshes issued just before it), for the per-op row-hit rate, refresh
// share and DRAM loss times (sim/engine/dram_op_stats.h).
#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>

#include "models/dram/dram_device.h"
#include "models/dram/dram_params.h"
#include "models/dram/simple_dram.h"
#include "models/kernel/dram_interface.h"
#include "models/kernel/fast_index.h"

namespace roofsim {

// What the controller did for one op's requests.
struct OpDramCounters {
  Bytes bytes = 0;              // asked by the engine
  std::uint64_t bursts = 0;     // served by the controller
  std::uint64_t row_opens = 0;  // parts that opened their row (row misses and conflicts); the other bursts hit
  std::uint64_t turnarounds_to_read = 0, turnarounds_to_write = 0;
  std::uint64_t refresh_cycles = 0;  // channel cycles of refreshes issued just before the op's parts
  // The DRAM commands charged to the op (DramPower counts RD and WR per burst): ACTs, PREs (conflicts,
  // auto-precharges, and banks closed for its refreshes), bursts, and the refreshes issued just before its parts.
  std::uint64_t acts = 0, pres = 0, read_bursts = 0, write_bursts = 0, refs_all_bank = 0, refs_per_bank = 0;

  // Every counter in one order, for a record that stores them as a flat sequence and reads them back.
  template <class Counters, class Visit>
  static void for_each_counter(Counters& c, Visit&& visit) {
    for (auto* v :
         {&c.bytes, &c.bursts, &c.row_opens, &c.turnarounds_to_read, &c.turnarounds_to_write, &c.refresh_cycles,
          &c.acts, &c.pres, &c.read_bursts, &c.write_bursts, &c.refs_all_bank, &c.refs_per_bank})
      visit(*v);
  }

  OpDramCounters& operator+=(const OpDramCounters& other) {
    bytes += other.bytes;
    bursts += other.bursts;
    row_opens += other.row_opens;
    turnarounds_to_read += other.turnarounds_to_read;
    turnarounds_to_write += other.turnarounds_to_write;
    refresh_cycles += other.refresh_cycles;
    acts += other.acts;
    pres += other.pres;
    read_bursts += other.read_bursts;
    write_bursts += other.write_bursts;
    refs_all_bank += other.refs_all_bank;
    refs_per_bank += other.refs_per_bank;
    return *this;
  }
};

class EngineDramAdapter final : public sc_core::sc_module,
                                public DramInterface,
                                private dram::DramPartObserver,
                                private DramCompletionSink {
 public:
  SC_HAS_PROCESS(EngineDramAdapter);
  // Throws InputError when the mapping does not parse.
  EngineDramAdapter(const sc_core::sc_module_name& name, const DramParams& dram);

  void submit(const DramRequest& request, DramCompletionSink& sink) override;
  [[nodiscard]] Bytes bytes_read() const override { return bytes_read_; }
  [[nodiscard]] Bytes bytes_written() const override { return bytes_written_; }
  [[nodiscard]] std::uint32_t channels() const override { return device_.channels(); }
  // A lone request: the simple model's figure (the busiest channel's share at the pin rate, plus the latency).
  [[nodiscard]] TimeFs unloaded_fs(Bytes address, Bytes bytes) const override;

  // Per op index (ops that never reached DRAM may be missing at the end). Updated as the controller schedules, so
  // the power domain may read them during the run.
  [[nodiscard]] const std::vector<OpDramCounters>& op_counters() const { return ops_; }
  // A memoized replay of `op` (sim/engine/op_replay.h): books the counters its recorded twin drew, and their bursts
  // as served and `asked_burst_bytes` as asked, without sending the controller a request. The refreshes due by
  // `end_fs` on idle channels are issued (uncharged): a replay passes its start here, a fast-forward's hold its end.
  void add_replayed(std::uint32_t op, const OpDramCounters& counters, Bytes asked_burst_bytes, TimeFs end_fs);
  // A replay's end: the refreshes due by `end_fs` less each channel's lag (DramDevice::refresh_lag_fs of its recorded
  // twin's end) are issued, so that the next op's first decisions find the refreshes owed that the twin left.
  void replay_ended(TimeFs end_fs, const std::vector<TimeFs>& lag_fs) { device_.refresh_idle_until(end_fs, lag_fs); }
  [[nodiscard]] std::vector<TimeFs> refresh_lag_fs(TimeFs at_fs) const { return device_.refresh_lag_fs(at_fs); }
  // Conservation: the requests' byte ranges rounded out to whole bursts, and the bursts the controller served, in
  // bytes. Equal once every request has completed.
  [[nodiscard]] Bytes asked_burst_bytes() const { return asked_burst_bytes_; }
  [[nodiscard]] Bytes served_burst_bytes() const { return served_bursts_ * burst_bytes_; }
  [[nodiscard]] Bytes burst_bytes() const { return burst_bytes_; }
  [[nodiscard]] dram::DramRunStats collect() { return device_.collect(); }
  [[nodiscard]] const dram::DramDevice& device() const { return device_; }
  void attach_scheduler(DeviceScheduler& scheduler) { device_.attach_scheduler(scheduler); }
  // Appends every request the engine submits, with the time it asked (`roofsim run --dram-trace`); null: none.
  void set_request_log(std::vector<DramRequest>* log) { request_log_ = log; }

 private:
  // A request in the controller: its requester's sink and tag (the controller carries the slot's index as its tag).
  struct Slot {
    DramCompletionSink* sink = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t op = 0;
  };

  void part_done(std::uint64_t tag, const dram::SegmentDone& part) override;
  void dram_done(std::uint64_t tag, TimeFs done_fs) override;
  void retry();  // on the device's space event: offers the waiting requests in order

  dram::DramDevice device_;
  SimpleDram unloaded_;
  Bytes burst_bytes_;
  Divider per_burst_;  // by burst_bytes_
  TimeFs path_latency_fs_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<DramRequest>* request_log_ = nullptr;
  std::deque<DramRequest> waiting_;  // refused for a full queue, tagged with their slots
  std::vector<OpDramCounters> ops_;
  Bytes bytes_read_ = 0, bytes_written_ = 0, asked_burst_bytes_ = 0;
  std::uint64_t served_bursts_ = 0;
};

}  // namespace roofsim
