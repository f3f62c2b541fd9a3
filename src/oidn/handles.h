// The objects behind OIDN's handles (include/OpenImageDenoise/oidn.h): reference counted as OIDN's
// are (retain/release; a buffer or filter holds a reference to its device), and each a thin shell
// over the engine's own classes: denoise::Device, runtime::Buffer, denoise::Filter.
#pragma once
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "OpenImageDenoise/oidn.h"
#include "denoise/filter.h"
#include "oidn/device_queue.h"
#include "runtime/buffer.h"
#include "runtime/physical_device.h"

namespace vx::oidn {

// What oidnGetDeviceError returns: the first error since the last query.
struct ErrorState {
  OIDNError code = OIDN_ERROR_NONE;
  std::string message;
};

// Reference counting shared by the three handle types.
class RefCounted {
 public:
  virtual ~RefCounted() = default;
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  std::atomic<int> refs_{1};
};

}  // namespace vx::oidn

struct OIDNDeviceImpl final : vx::oidn::RefCounted {
  vx::runtime::PhysicalDevice physical;  // chosen when the handle is made
  OIDNDeviceType type = OIDN_DEVICE_TYPE_CPU;  // what "type" reports
  // Set before commit.
  int num_threads = 0;
  bool set_affinity = true;
  int verbose = 0;
  // Made by oidnCommitDevice.
  std::shared_ptr<vx::denoise::Device> device;
  bool committed() const { return device != nullptr; }
  // The *Async calls' worker, made at commit; declared after `device` so that it finishes the
  // queued work before the engine's device goes.
  std::unique_ptr<vx::oidn::DeviceQueue> queue;

  std::mutex mutex;  // guards what follows
  OIDNErrorFunction error_function = nullptr;
  void* error_user = nullptr;
  // Errors are kept per thread, as OIDN keeps them.
  std::unordered_map<std::thread::id, vx::oidn::ErrorState> errors;
};

namespace vx::oidn {
// OIDN's release: a handle's release first waits for the device's queued *Async work (OIDN waits
// when the release destroys the object; the queued work holds references here, so every release
// waits). Otherwise the worker could drop the last reference and tear the device down on its own
// thread while the program exits (OIDN's async test crashed at exit on the H200 that way).
inline void wait_for_queued_work(OIDNDeviceImpl* device) {
  if (device != nullptr && device->queue) device->queue->wait();
}
}  // namespace vx::oidn

struct OIDNBufferImpl final : vx::oidn::RefCounted {
  OIDNDeviceImpl* device;  // retained
  std::shared_ptr<vx::runtime::Buffer> buffer;
  OIDNBufferImpl(OIDNDeviceImpl* d, std::shared_ptr<vx::runtime::Buffer> b) : device(d), buffer(std::move(b)) {
    device->retain();
  }
  ~OIDNBufferImpl() override { device->release(); }
};

struct OIDNFilterImpl final : vx::oidn::RefCounted {
  OIDNDeviceImpl* device;  // retained
  vx::denoise::Filter filter;
  // The images' buffers, kept alive while set (OIDN's filters retain them).
  std::unordered_map<std::string, std::shared_ptr<vx::runtime::Buffer>> image_buffers;
  std::unordered_map<std::string, int> image_channels;
  std::unordered_set<std::string> empty_images;  // set with a 0 side: commit and execute do nothing  // 1-3 (OIDN checks them at commit)
  // The user's "weights" (oidnSetSharedFilterData): read again at the commit after a change.
  const void* weights = nullptr;
  size_t weights_bytes = 0;
  bool weights_changed = false;
  int quality = OIDN_QUALITY_HIGH;  // as OIDN reports it (DEFAULT becomes HIGH)
  bool dirty = true;  // changed since the last commit: execute refuses (OIDN's rule)
  OIDNFilterImpl(OIDNDeviceImpl* d, std::shared_ptr<vx::denoise::Device> engine_device)
      : device(d), filter(std::move(engine_device)) {
    device->retain();
  }
  ~OIDNFilterImpl() override { device->release(); }
};
