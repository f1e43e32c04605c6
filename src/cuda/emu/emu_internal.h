// emu_internal.h: what the emulator's own files share (not seen by kernels).
// Streams are FIFO queues of host closures, each drained by one worker thread;
// completion is tracked by marks (an event record is a mark queued on a stream).
#ifndef NABLA_CUDA_EMU_INTERNAL_H_
#define NABLA_CUDA_EMU_INTERNAL_H_

#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace nbemu {

// ---- errors (emu_runtime.cpp) ----
// Sets this thread's last error (cudaGetLastError) and its detail, which
// cudaGetErrorString(err) returns while it is the latest of that code; returns err.
cudaError_t fail(cudaError_t err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// An error found while a stream ran queued work (a kernel fault): sticky for the
// device, as on a GPU, and returned by every later synchronising call.
void fail_async(int device, cudaError_t err, const char* detail);
cudaError_t sticky_error(int device);  // also copies the detail to this thread
int current_device();
int device_count();

// ---- memory registry (emu_runtime.cpp) ----
enum class Mem { kPageable, kDevice, kPinned };
// Where [p, p + n) lives; a range that starts in an allocation but leaves it is kDevice
// with *inside false.
Mem classify(const void* p, size_t n, bool* inside = nullptr);

// ---- streams and marks (emu_stream.cpp) ----
struct Mark {
    bool done = false;  // guarded by mark_mutex()
    double ms = 0;      // host clock when the stream reached it
};
std::mutex& mark_mutex();
std::condition_variable& mark_cv();
void wait_mark(const std::shared_ptr<Mark>& m);

struct Stream;
// The stream behind a handle (NULL, cudaStreamLegacy and cudaStreamPerThread mean the
// current device's legacy default stream), or nullptr for an unknown handle.
Stream* resolve(cudaStream_t s);
int stream_device(Stream* s);
// Queues op in stream order (with the legacy stream's implicit synchronisation).
void enqueue(Stream* s, std::function<void()> op);
std::shared_ptr<Mark> record(Stream* s);
void synchronize_device(int device);
void synchronize_all();

// ---- kernels (emu_exec.cpp) ----
double now_ms();

// ---- counters for tests (emu_runtime.cpp): kernels launched, copies from host memory
// to the device (read through the exported nbemu_counters) and warp-wide
// wmma::mma_sync calls (count_mma in emu_wmma.h, read through nbemu_mma_syncs). ----
void count_launch();
void count_mma();

}  // namespace nbemu

#endif  // NABLA_CUDA_EMU_INTERNAL_H_
