#include "sequence_pipeline.h"

#include "core/error.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace vx::cli {
namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The shared state; every member but the slots' contents is guarded by `mutex`. A slot's contents
// belong to the one stage that took it out of a queue.
struct Pipeline {
  const int jobs;
  const PipelineOptions& options;
  const PipelineStages& stages;
  std::vector<FrameSlot> slots;
  std::vector<FrameSlot*> free_slots;
  std::map<int, FrameSlot*> ready;    // decoded, by job
  std::deque<FrameSlot*> to_write;    // processed, in the order the lanes finished them
  int in_write = 0;                   // in to_write or being written
  int next_read = 0, taken = 0;       // the next job to read, the jobs lanes took
  std::vector<std::vector<int>> queue_jobs;  // each queue's jobs, in order
  std::vector<size_t> next_take;             // per queue: the position of the next job to take
  int active_lanes = 0;
  bool stop_taking = false;           // a lane failed: no lane takes another job
  bool stop_reading = false;          // the lanes ended (done or failed)
  bool processing_done = false;       // no more frames come to the writers
  bool stop = false;                  // a writer failed: every stage ends now
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable changed;

  Pipeline(int jobs, const PipelineOptions& options, const PipelineStages& stages)
      : jobs(jobs), options(options), stages(stages), slots(size_t(options.slots())),
        queue_jobs(size_t(options.queues)), next_take(size_t(options.queues), 0) {
    for (FrameSlot& slot : slots) free_slots.push_back(&slot);
    for (int job = 0; job < jobs; ++job)
      queue_jobs[size_t(options.job_queue.empty() ? 0 : options.job_queue[size_t(job)])].push_back(job);
  }

  bool cancelled() const { return options.cancel && options.cancel->load(); }
  // Under the lock.
  void record(std::exception_ptr e) {
    if (!error) error = e;
  }
  void finished(FrameSlot* slot, bool written) {  // under the lock
    try {
      if (stages.done) stages.done(*slot, written);
    } catch (...) {
      record(std::current_exception());
      stop = stop_reading = true;
    }
    free_slots.push_back(slot);
  }

  void reader() {
    for (;;) {
      FrameSlot* slot = nullptr;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] {
          return stop || stop_reading || next_read >= jobs ||
                 (!free_slots.empty() && next_read < taken + options.read_ahead);
        });
        if (stop || stop_reading || next_read >= jobs) return;
        slot = free_slots.back();
        free_slots.pop_back();
        slot->job = next_read++;
      }
      slot->error = nullptr;
      slot->ms_process = slot->ms_write = 0;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        stages.read(*slot);
      } catch (...) {
        slot->error = std::current_exception();
      }
      slot->ms_read = ms_between(t0, std::chrono::steady_clock::now());
      {
        std::lock_guard lock(mutex);
        ready[slot->job] = slot;
      }
      changed.notify_all();
    }
  }

  void writer() {
    for (;;) {
      FrameSlot* slot = nullptr;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || !to_write.empty() || processing_done; });
        if (stop || to_write.empty()) return;
        slot = to_write.front();
        to_write.pop_front();
      }
      const auto t0 = std::chrono::steady_clock::now();
      try {
        stages.write(*slot);
        slot->ms_write = ms_between(t0, std::chrono::steady_clock::now());
        std::lock_guard lock(mutex);
        finished(slot, true);
        --in_write;
      } catch (...) {
        std::lock_guard lock(mutex);
        record(std::current_exception());
        stop = stop_reading = true;
        --in_write;
      }
      changed.notify_all();
    }
  }

  // A lane: takes its queue's next job in order, processes it, queues its write.
  void processor(int lane) {
    const std::vector<int>& queue = queue_jobs[size_t(lane % options.queues)];
    size_t& next = next_take[size_t(lane % options.queues)];
    for (;;) {
      FrameSlot* slot = nullptr;
      {
        std::unique_lock lock(mutex);
        // The cancel flag is polled: a signal handler cannot notify a condition variable.
        while (!changed.wait_for(lock, std::chrono::milliseconds(options.cancel ? 50 : 1000000), [&] {
          return stop || stop_taking || next >= queue.size() || ready.count(queue[next]) > 0 || cancelled();
        })) {
        }
        if (cancelled() && !stop && taken < jobs) {
          record(std::make_exception_ptr(Error(ErrorCode::Cancelled, options.cancel_message)));
          stop_taking = true;
        }
        if (stop || stop_taking || next >= queue.size()) break;
        const int job = queue[next++];
        slot = ready[job];
        ready.erase(job);
        ++taken;
      }
      changed.notify_all();  // a reader may read further ahead
      bool write = false;
      try {
        if (slot->error) std::rethrow_exception(slot->error);
        const auto t0 = std::chrono::steady_clock::now();
        write = stages.process(*slot, lane);
        slot->ms_process = ms_between(t0, std::chrono::steady_clock::now());
      } catch (...) {
        {
          std::lock_guard lock(mutex);
          record(std::current_exception());
          free_slots.push_back(slot);
          stop_taking = true;  // the frames processed are still written
        }
        changed.notify_all();
        break;
      }
      {
        std::unique_lock lock(mutex);
        if (write) {
          changed.wait(lock, [&] { return stop || in_write < options.write_queue; });
          if (stop) break;
          to_write.push_back(slot);
          ++in_write;
        } else {
          finished(slot, false);
          if (stop) break;
        }
      }
      changed.notify_all();
    }
    {
      std::lock_guard lock(mutex);
      if (--active_lanes == 0) stop_reading = processing_done = true;
    }
    changed.notify_all();
  }
};

}  // namespace

void run_pipeline(int jobs, const PipelineOptions& options, const PipelineStages& stages) {
  if (jobs <= 0) return;
  PipelineOptions checked = options;
  checked.lanes = std::max(1, options.lanes);
  checked.queues = std::max(1, options.queues);
  VX_CHECK(checked.lanes >= checked.queues && (options.job_queue.empty() || int(options.job_queue.size()) == jobs),
           Internal, "run_pipeline: ", checked.lanes, " lanes for ", checked.queues, " queues; ",
           options.job_queue.size(), " queue numbers for ", jobs, " jobs");
  for (int q : options.job_queue) VX_CHECK(q >= 0 && q < checked.queues, Internal, "run_pipeline: a job of queue ", q);
  checked.read_ahead = std::max(1, options.read_ahead);
  checked.write_queue = std::max(1, options.write_queue);
  Pipeline p(jobs, checked, stages);
  p.active_lanes = checked.lanes;
  std::vector<std::thread> threads;
  try {
    for (int i = 0; i < std::max(1, options.readers); ++i) threads.emplace_back([&p] { p.reader(); });
    for (int i = 0; i < std::max(1, options.writers); ++i) threads.emplace_back([&p] { p.writer(); });
    for (int lane = 1; lane < checked.lanes; ++lane) threads.emplace_back([&p, lane] { p.processor(lane); });
  } catch (...) {  // the system refused a thread: end the ones started
    {
      std::lock_guard lock(p.mutex);
      p.stop = p.stop_reading = p.processing_done = true;
    }
    p.changed.notify_all();
    for (std::thread& t : threads) t.join();
    throw;
  }
  p.processor(0);
  for (std::thread& t : threads) t.join();
  if (p.error) std::rethrow_exception(p.error);
}

}  // namespace vx::cli
