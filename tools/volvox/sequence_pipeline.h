// The streaming pipeline of `volvox denoise --sequence` (issue 14): frames decoded ahead by a pool of
// reader threads, processed by `lanes` processing threads that take them in frame order (one lane:
// one at a time, in order, as a temporal history needs; several: each lane its own filter, so that
// one lane's host copies overlap another's device work), and encoded and written by a pool of writer
// threads, so that the device does not wait for file decoding or encoding.
//
// Several devices in a temporal mode (one history per device, over its own chunk of frames): jobs
// belong to queues, and each lane takes only its queue's jobs, in job order. Readers still decode
// in job order, so the caller interleaves the queues' jobs to feed every lane (the read-ahead is
// shared: a lane that runs far ahead of the others waits for them to take their frames).
//
// Memory is bounded by the slots: at most `read_ahead` frames are decoded (or being decoded) and not
// yet taken by a lane, each lane holds one, and at most `write_queue` processed frames wait for (or
// are in) a write, so no more than K = read_ahead + lanes + write_queue frames' images exist at once
// (each slot's images are reused from frame to frame: an output buffer keeps its allocation).
//
// Errors: an exception of a reader is kept with its frame and rethrown when that frame is processed,
// so the frames before it are still processed and written as in a sequential loop (with several
// lanes, frames after it already taken by other lanes are finished too); an exception of a lane
// stops the taking of frames (the frames processed are still written); one of a writer stops every
// thread (frames in flight are dropped, complete outputs already written stay). run_pipeline
// rethrows the first once all threads have ended.
#pragma once
#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "formats/image.h"

namespace vx::cli {

// One frame's images on their way through the pipeline.
struct FrameSlot {
  int job = -1;  // the position in the caller's list of frames
  Image color, albedo, normal, motion, depth, output;
  std::exception_ptr error;  // the reader's, rethrown in the frame's turn
  double ms_read = 0, ms_process = 0, ms_write = 0;
};

struct PipelineOptions {
  int readers = 2;      // decoding threads
  int read_ahead = 3;   // frames decoded and not yet taken by a lane
  int lanes = 1;        // processing threads (the calling thread is lane 0)
  // Empty: one queue, every lane takes every job. Else job j is queue job_queue[j]'s, and lane l
  // takes only queue l % queues's jobs (lanes >= queues).
  std::vector<int> job_queue;
  int queues = 1;
  int writers = 2;      // encoding threads
  int write_queue = 3;  // processed frames waiting for, or in, a write
  // When set and true, no lane takes another frame (the frames processed are still written) and
  // run_pipeline throws Error(Cancelled) `cancel_message` (a signal handler sets it: SIGTERM from a
  // scheduler, Ctrl-C).
  const std::atomic<bool>* cancel = nullptr;
  std::string cancel_message = "interrupted";
  // The slots: every frame image the pipeline holds at once lives in one of them.
  int slots() const { return read_ahead + lanes + write_queue; }
};

struct PipelineStages {
  // A reader thread: decode job `slot.job` into the slot (any order, several at once).
  std::function<void(FrameSlot&)> read;
  // A lane (0 .. lanes-1; one lane takes jobs in order, one at a time): process the slot; true if
  // its output is to be written.
  std::function<bool(FrameSlot&, int lane)> process;
  // A writer thread: encode and write the slot's output (several at once).
  std::function<void(FrameSlot&)> write;
  // After a job is done (written, or processed when not written); called under the pipeline's lock,
  // one at a time, in completion order (progress reports). `written`: whether it was written.
  std::function<void(const FrameSlot&, bool written)> done;
};

// Runs jobs 0 .. jobs-1 through the stages; returns when all are done; rethrows the first error.
void run_pipeline(int jobs, const PipelineOptions& options, const PipelineStages& stages);

}  // namespace vx::cli
