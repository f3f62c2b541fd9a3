/* Volvox C API for ONNX models: load a model on a device (the device's kind decides where it runs),
 * set inputs by name, execute, read outputs. Errors are recorded on the device like the filter's
 * (vxGetDeviceError). Included by volvox.h. */
#ifndef VOLVOX_MODEL_H
#define VOLVOX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VXModelImpl* VXModel;

typedef enum {
  VX_TYPE_FLOAT32 = 1,
  VX_TYPE_FLOAT16 = 2,
  VX_TYPE_INT8 = 3,
  VX_TYPE_UINT8 = 4,
  VX_TYPE_INT32 = 5,
  VX_TYPE_INT64 = 6,
  VX_TYPE_BOOL = 7
} VXDataType;

/* Loads an ONNX file (external data files next to it) or an in-memory model. A model with ops that
 * cannot run fails here with an error listing every such node. NULL on failure. */
VXModel vxNewModel(VXDevice device, const char* path);
VXModel vxNewModelFromMemory(VXDevice device, const void* data, size_t size);
void vxReleaseModel(VXModel model);

/* "precision": 0 auto (= fp32, the model's own answers), 1 fp32, 2 fp16 (Vulkan devices: fp16
 * storage with fp32 arithmetic). Takes effect at the next execute.
 * "maxMemoryMB": 0 (the default) no limit; N > 0: an execute whose plan for the current input
 * shapes needs more than N MiB fails with VX_ERROR_OUT_OF_MEMORY before allocating it, with one
 * line such as "model needs a 3512 MB activation arena for input shapes x=1x3x4096x4096, above the
 * limit of 1024 MB (maxMemoryMB)". Counted: the activation arena; on Vulkan devices also the
 * constants and staging buffers. On the CPU, a model that cannot be planned for its input shapes
 * (it would run on the unbounded eager path) fails with VX_ERROR_UNSUPPORTED while a limit is set.
 * Negative values are invalid.
 * "profiling": 1 times every node of each following execute (vxGetModelProfileEntry; on a Vulkan
 * device with GPU timestamps, so switching it makes the device's plans again), 0 (the default) off. */
void vxSetModelInt(VXModel model, const char* name, int value);

size_t vxGetModelInputCount(VXModel model);
size_t vxGetModelOutputCount(VXModel model);
/* NULL when index is out of range; the string lives as long as the model. */
const char* vxGetModelInputName(VXModel model, size_t index);
const char* vxGetModelOutputName(VXModel model, size_t index);
/* What the model file declares for input (or output) `index` (ONNX Runtime's NodeArg): the element
 * type and the shape, `rank` extents where dims[i] >= 0 is fixed and -1 is free, and dim_names[i] the
 * symbolic name of extent i ("batch"), "" where the model names none. A model that declares no shape
 * gives rank 0. The arrays live as long as the model; any out-pointer may be NULL. Returns false (and
 * records an error) when index is out of range. */
bool vxGetModelInputInfo(VXModel model, size_t index, VXDataType* type, const int64_t** dims,
                         const char* const** dim_names, size_t* rank);
bool vxGetModelOutputInfo(VXModel model, size_t index, VXDataType* type, const int64_t** dims,
                          const char* const** dim_names, size_t* rank);

/* Copies the input (row-major, `rank` dimensions). Every input must be set before execute; an input
 * keeps its value across executes until set again. The type must be the declared one, and so must
 * the rank and every fixed extent where the model declares a shape (VX_ERROR_INVALID_ARGUMENT naming
 * the input and what it expects otherwise). */
void vxSetModelInput(VXModel model, const char* name, VXDataType type, const int64_t* shape, size_t rank,
                     const void* data);
/* IO binding (as ONNX Runtime's), on a device made by vxNewVulkanDevice: an input read from, or an
 * output written to, the application's VkBuffer (as uint64_t) instead of host memory, so that a
 * model between the application's own GPU work costs no copy through the host. The buffer holds the
 * value as float32, row-major, from byte_offset on (a multiple of 4; at fp16 precision, and for the
 * U-Net networks that run whole on the denoiser's kernels, a multiple of the device's
 * minStorageBufferOffsetAlignment: 256 always works). It needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
 * and VK_BUFFER_USAGE_TRANSFER_SRC_BIT (inputs) or VK_BUFFER_USAGE_TRANSFER_DST_BIT (outputs), and
 * must hold the whole value. Only float32 inputs and outputs can be bound whose readers (an input)
 * or producer (an output) all run on the GPU: vxExecuteModel fails naming the value otherwise.
 * vxSetModelInput on a bound input reads it from host memory again; buffer 0 unbinds an output.
 * After vxExecuteModel, vxGetModelOutput gives a bound output's type and shape with data NULL.
 * Synchronisation as for vxSetFilterVulkanBuffer (volvox.h): earlier writes on the same queue are
 * visible to the model; when vxExecuteModel returns, the outputs are written and visible to later
 * commands on the queue. */
void vxSetModelInputVulkanBuffer(VXModel model, const char* name, const int64_t* shape, size_t rank, uint64_t buffer,
                                 size_t byte_offset);
void vxSetModelOutputVulkanBuffer(VXModel model, const char* name, uint64_t buffer, size_t byte_offset);
void vxExecuteModel(VXModel model);
/* After execute: the output's type, shape and data, valid until the next execute or release.
 * Returns false (and records an error) when there is no such output or no execute ran yet. */
bool vxGetModelOutput(VXModel model, const char* name, VXDataType* type, const int64_t** shape, size_t* rank,
                      const void** data);
/* After an execute with "profiling" on: its nodes in execution order, each with its name, op type,
 * kernel ("cpu:onednn", "vulkan:...") and time in milliseconds (GPU time on a Vulkan device). Count 0
 * before such an execute; the strings live until the next execute or release. vxGetModelProfileEntry
 * returns false (and records an error) when index is out of range; any out-pointer may be NULL. */
size_t vxGetModelProfileCount(VXModel model);
bool vxGetModelProfileEntry(VXModel model, size_t index, const char** node, const char** op, const char** kernel,
                            double* milliseconds);

#ifdef __cplusplus
}
#endif

#endif /* VOLVOX_MODEL_H */
