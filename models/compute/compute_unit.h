#pragma once
// One compute unit (an SM, a CU, a TPU core): `occupancy` tile slots that share its engines, an outstanding-request
// limit, and multi-buffered k-steps (the loads of steps s + 1 .. s + stages - 1 overlap the compute of step s; the
// op's stage count, at least 2, is set where the op is prepared, OpExecution::stages). It wakes only when a
// chunk arrives, a phase of a step finishes computing or a write is acknowledged: one event per chunk and phase,
// never per cycle.
// A step computes in up to kMaxPhases phases (an attention step: S = Q K^T on the matrix engine, the softmax on the
// vector and special-function engines, P V on the matrix engine). A phase reserves each engine it uses when it
// starts; those run concurrently and the phase ends when the last finishes. Engines serve the reservations of all
// slots in order (engine_share.h), so what overlaps across slots emerges from their contention. Within a slot the
// op's kernel schedule orders the phases: `serial` runs them one after another, step after step; `pingpong` also
// starts phase 0 of step s + 1 once phase 0 of step s is done and the step's reads arrived, while the later phases
// keep their order (phase 1 of s + 1 after the last phase of s).
// Reads wait in a FIFO for one of the unit's outstanding-request slots (Little's law); writes are posted without one
// (a thread block retires once its stores are issued), so a tile leaves its slot after its last step, and its op
// ends when the writes are acknowledged.
//
// Parameters: index, occupancy, outstanding limit, engine count. Connects to: the chunk memory (requests,
// models/kernel/chunk_memory.h), the ops' shared counters, the dispatcher (tile finished) and, optionally, the compute
// clock (models/kernel/compute_clock.h: engine rates follow it; steps in flight are re-timed when it changes).
// Statistics: events (chunk arrivals, step ends, write acknowledgements), and per op the counters of OpExecution.
#include <systemc>

#include <cstdint>
#include <vector>

#include "models/compute/engine_share.h"
#include "models/compute/op_execution.h"
#include "models/compute/paced_work.h"
#include "models/compute/ring_queue.h"
#include "models/kernel/chunk_memory.h"
#include "models/kernel/compute_clock.h"
#include "models/kernel/device_scheduler.h"
#include "models/kernel/quad_heap.h"

namespace roofsim {

// Steps between two step boundaries of a tile (before rounding up to a multiple of its buffers): a tile of a few
// hundred k-steps then has most of its steps left after the three boundaries a steady window needs, while an interval
// of 8 steps on all 264 slots of an H100 still varies by only about 0.3% in time per unit of work (measured on GPT-3's
// GEMMs).
inline constexpr std::uint32_t kStepQuantum = 8;

class TileListener {
 public:
  // A tile of `op` left `unit` (its slot is free); its writes may still be in flight.
  virtual void tile_finished(std::size_t op, std::uint64_t unit) = 0;
  // A write of `op` was posted / acknowledged: an op ends when its tiles have left and its writes are acknowledged.
  virtual void write_posted(std::size_t op) = 0;
  virtual void write_acknowledged(std::size_t op) = 0;
  // Steady-state fast-forward inside tiles (sim/engine/wave_fast_forward.h): the unit's first slot running a tile of
  // `op` computed a multiple of ComputeUnit::step_quantum steps of it, more remaining. The listener may skip steps of
  // every slot of `op` (ComputeUnit::skip_steps) before the slot loads its next.
  virtual void step_boundary(std::size_t op) { (void)op; }

 protected:
  ~TileListener() = default;
};

struct ComputeUnitParams {
  std::uint64_t index = 0;
  std::uint64_t occupancy = 1;
  std::uint64_t outstanding_requests = 1;
  std::size_t engines = 1;
};

class ComputeUnit : public sc_core::sc_module, private ChunkCompletionSink, private ClockListener, private Wakeable {
 public:
  ComputeUnit(const sc_core::sc_module_name& name, const ComputeUnitParams& params, ChunkMemory& memory,
              std::vector<OpExecution>& ops, TileListener& listener);

  // Engine rates follow `clock` from now on (rates in OpExecution are at its nominal clock).
  void attach_clock(ComputeClock& clock);
  // The device's scheduler calls the unit's wake-ups (device_scheduler.h); without it the unit's own process does.
  void attach_scheduler(DeviceScheduler& scheduler) { wake_.attach(scheduler, *this); }

  // Starts tile `tile` of op `op` in a free slot at the current time (the dispatcher checked there is one).
  void start_tile(std::size_t op, std::uint64_t tile);

  // Timed events handled: chunk arrivals, step ends and write acknowledgements (one wake may handle several).
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] TimeFs engine_busy_fs(std::size_t engine) const { return engines_[engine].busy_fs(); }
  // Adds, per op, the work of steps on the engines that is not done at `at_fs` (StepWorkPacing, paced_work.h).
  // Executed minus this is what a power sensor sees spent.
  void add_unfinished_work(TimeFs at_fs, std::vector<UnfinishedWork>& per_op) const;
  // Steady-state fast-forward's state (sim/engine/wave_fast_forward.h): counts each busy slot running a tile of `op`
  // in `histogram` by the share of its k-steps computed (histogram.size() classes), and adds the steps whose reads
  // wait for an outstanding-request slot to `queued` and the reads issued to `outstanding`.
  void add_progress(std::size_t op, std::vector<std::uint64_t>& histogram, std::uint64_t& queued,
                    std::uint64_t& outstanding) const;
  // Steady-state fast-forward inside tiles. A step boundary comes every `step_quantum(stages)` steps of a tile (a
  // multiple of the tile's buffers, so that a skip keeps each step in flight in its buffer); this unit reports them to
  // its listener while `watch_steps` is set (unit 0 only: one slot of one unit is the op's metronome).
  [[nodiscard]] static std::uint32_t step_quantum(std::uint32_t stages);
  void watch_steps(bool on) { watch_steps_ = on; }
  struct SlotSteps {
    std::uint64_t unit = 0;
    std::uint64_t tile = 0;
    std::uint32_t steps = 0, next_load = 0, computed = 0;
  };
  // The busy slots running tiles of `op`, appended to `out`.
  void add_slot_steps(std::size_t op, std::vector<SlotSteps>& out) const;
  // The slot running tile `tile` of `op` jumps `steps` steps ahead (a multiple of its buffers, fewer than it has
  // still to load): the steps it has loaded or is computing keep their work and reads and continue as the steps
  // `steps` later, each in the buffer it holds, and the `steps` steps from its next load on are never run (the caller
  // books them).
  void skip_steps(std::size_t op, std::uint64_t tile, std::uint32_t steps);

 private:
  enum class Kind : std::uint8_t { read_done, write_done, compute_done };
  // A pending event in 16 bytes: what wake() needs rides in the key, so that handling a chunk's arrival reads no
  // record written when the chunk was issued (a cache miss per event, since a unit's state is cold between wakes).
  // key = push sequence << 24 | kind << 22 | payload: events of one time pop in push order.
  struct Timed : TimedKey {
    [[nodiscard]] Kind kind() const { return static_cast<Kind>((key >> kPayloadBits) & 3U); }
    [[nodiscard]] std::uint32_t payload() const { return static_cast<std::uint32_t>(key & kPayloadMask); }
  };
  // Payloads: a read's slot << kBufferBits | buffer, a write's op, a compute's slot.
  static constexpr unsigned kPayloadBits = 22;
  static constexpr std::uint64_t kPayloadMask = (1ULL << kPayloadBits) - 1;
  static constexpr unsigned kBufferBits = 11;
  // A compute event's payload: its slot, with this bit when it ends a phase 0 started ahead (pingpong).
  static constexpr std::uint32_t kAheadBit = 1U << (kPayloadBits - 1);
  static constexpr std::uint64_t kSeqLimit = 1ULL << (64 - kPayloadBits - 2);
  // A tile slot. Its first host cache line holds what a chunk's arrival reads and writes (the pending reads of the
  // first kInlineStages buffers among them), so that an arrival at a cold unit costs that one line.
  static constexpr std::uint32_t kInlineStages = 4;
  struct alignas(64) Slot {
    std::uint64_t tile = 0;
    std::size_t op = 0;
    std::uint32_t steps = 0;
    std::uint32_t next_load = 0;  // next step whose reads are generated
    std::uint32_t computed = 0;   // steps whose compute has finished
    std::uint32_t stages = 2;
    std::uint32_t pending[kInlineStages] = {};  // reads still to arrive, per buffer
    bool busy = false;
    bool computing = false;                   // a phase of step `computed` is running
    std::uint8_t phase = 0;                   // the phase of step `computed` running, or next to start
    std::uint8_t ahead = 0;                   // phase 0 of step computed + 1 (pingpong): kNone, kRunning or kDone
    std::uint8_t binding = 0;                 // the engine that ended the running phase of step `computed` last
    std::uint8_t phase_count = 1;             // of step `computed`: a phase's end need not read its cold buffer
    std::uint8_t ahead_phase_count = 1;       // of the step whose phase 0 runs ahead
    TimeFs phase_start_fs = 0;                // when that phase started
    std::vector<TileStep> buffers;            // step s lives in buffer s % stages
    std::vector<std::uint32_t> more_pending;  // of buffers kInlineStages and later
    // The primary engine's reservation of the running phases (step `computed`, and the phase 0 started ahead), for
    // re-timing their busy time when the clock changes; start == end when a phase does not use it.
    TimeFs primary_start_fs[2] = {0, 0};
    TimeFs primary_end_fs[2] = {0, 0};
    // The same two steps' work as a power sensor sees it spent.
    std::array<StepWorkPacing, 2> pacing{};
    std::uint32_t& pending_reads(std::uint32_t buffer) {
      return buffer < kInlineStages ? pending[buffer] : more_pending[buffer - kInlineStages];
    }
  };
  // The read chunks [next, end) of one step, waiting in order for outstanding-request slots: one entry per step
  // rather than per chunk. The step's chunks and ranges stay in place until they are issued: a buffer is refilled only
  // after its step computed, which needs every read of the step.
  struct Requests {
    const Chunk* chunks = nullptr;
    const AddressRange* ranges = nullptr;
    TimeFs queued_fs = 0;
    std::uint32_t next = 0;
    std::uint32_t end = 0;
    std::uint32_t op = 0;
    std::uint16_t slot = 0;
    std::uint16_t buffer = 0;
  };
  // An issued read (at most `outstanding_requests` at once); its tag is its index << 1, a write's tag its op << 1 | 1.
  struct Issued {
    TimeFs issued_fs = 0;
    std::uint32_t op = 0;
    std::uint16_t slot = 0;
    std::uint16_t buffer = 0;
  };

  void wake();
  void wake_now() override { wake(); }
  void chunk_done(std::uint64_t tag, TimeFs done_fs, TimeFs unloaded_fs) override;
  void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) override;
  void push(TimeFs at, Kind kind, std::uint32_t payload);
  void renumber();
  void reschedule(TimeFs now);
  void load_ahead(std::uint32_t slot, TimeFs now);
  static constexpr std::uint8_t kNone = 0, kRunning = 1, kDone = 2;
  void try_compute(std::uint32_t slot, TimeFs now);
  // Starts phase `phase` of the step in `buffer` of `slot` now; `ahead`: it is phase 0 of the step after the one the
  // slot is computing. Returns when the phase ends.
  void start_phase(std::uint32_t slot, std::uint32_t buffer, std::uint32_t phase, bool ahead, TimeFs now);
  void phase_done(std::uint32_t slot, TimeFs now);
  void drain_requests(TimeFs now);
  void finish_step(std::uint32_t slot, TimeFs now);
  void maybe_finish_tile(std::uint32_t slot, TimeFs now);
  [[nodiscard]] static TimeFs now_fs() { return sc_core::sc_time_stamp().value(); }

  // The fields a wake-up touches come together, so that a cold unit costs few lines of the host's cache.
  sc_core::sc_event wake_event_;
  WakeHandle wake_{wake_event_};
  QuadHeap<Timed> timeline_;
  std::uint64_t seq_ = 0;
  TimeFs scheduled_ = kNever;
  bool in_wake_ = false;
  std::uint64_t outstanding_ = 0;
  RingQueue<Requests> request_queue_;  // read chunks waiting for an outstanding-request slot, by step
  std::vector<Issued> issued_;
  std::vector<std::uint32_t> free_issued_;
  std::vector<Slot> slots_;
  std::vector<OpExecution>& ops_;
  ChunkMemory& memory_;
  TileListener& listener_;
  ComputeUnitParams params_;
  std::vector<EngineShare> engines_;
  std::uint64_t events_ = 0;
  const ComputeClock* clock_ = nullptr;
  std::size_t clock_state_ = 0;  // the clock's state as this unit last saw it (the state before a change)
  bool watch_steps_ = false;
};

}  // namespace roofsim
