// The streaming pipeline of `volvox denoise --sequence` (issue 14): frames decoded ahead by a pool of
// reader threads, processed one at a time in frame order on the calling thread (the filter: its
// device work and temporal history need the order), and encoded and written by a pool of writer
// threads, so that the device does not wait for file decoding or encoding.
//
// Memory is bounded by the slots: at most `read_ahead` frames are decoded (or being decoded) beyond
// the one being processed, and at most `write_queue` processed frames wait for (or are in) a write,
// so no more than K = read_ahead + 1 + write_queue frames' images exist at once (each slot's images
// are reused from frame to frame: an output buffer keeps its allocation).
//
// Errors: an exception of a reader is kept with its frame and rethrown when that frame's turn comes,
// so the frames before it are still processed and written as in a sequential loop; an exception of
// the processor or a writer stops every thread (frames in flight are dropped, complete outputs
// already written stay) and is rethrown by run_pipeline once all threads have ended.
#pragma once
#include <exception>
#include <functional>

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
  int read_ahead = 3;   // frames decoded beyond the one being processed
  int writers = 2;      // encoding threads
  int write_queue = 3;  // processed frames waiting for, or in, a write
  // The slots: every frame image the pipeline holds at once lives in one of them.
  int slots() const { return read_ahead + 1 + write_queue; }
};

struct PipelineStages {
  // A reader thread: decode job `slot.job` into the slot (any order, several at once).
  std::function<void(FrameSlot&)> read;
  // The calling thread, in job order: process the slot; true if its output is to be written.
  std::function<bool(FrameSlot&)> process;
  // A writer thread: encode and write the slot's output (several at once).
  std::function<void(FrameSlot&)> write;
  // After a job is done (written, or processed when not written); called under the pipeline's lock,
  // one at a time, in completion order (progress reports). `written`: whether it was written.
  std::function<void(const FrameSlot&, bool written)> done;
};

// Runs jobs 0 .. jobs-1 through the stages; returns when all are done; rethrows the first error.
void run_pipeline(int jobs, const PipelineOptions& options, const PipelineStages& stages);

}  // namespace vx::cli
