// emu_stream.cpp: streams and events of the emulated CUDA runtime. Each stream
// is a queue drained in order by its own worker thread, so work runs
// asynchronously to the host exactly as on a GPU: a result read without the
// stream or event synchronisation a GPU needs is wrong here too (and TSan sees
// the race). Each device has a legacy default stream (the NULL handle) with
// CUDA's implicit synchronisation against blocking streams; streams created
// cudaStreamNonBlocking (nabla's) never wait for it.
#include <algorithm>
#include <chrono>
#include <vector>

#include "emu_internal.h"

namespace nbemu {

struct Stream {
    int device = 0;
    unsigned flags = 0;
    int priority = 0;
    bool legacy = false;
    std::mutex mu;
    std::condition_variable cv;
    // An op, or a mark that completes once every earlier op has (a mark after
    // pending drops, so a stream query agrees with a completed event).
    struct Item {
        std::function<void()> op;
        std::shared_ptr<Mark> mark;
    };
    std::deque<Item> queue;
    int64_t pending = 0;  // queued or running items
    bool closing = false;
};

namespace {

struct Registry {
    std::mutex mu;
    std::vector<std::shared_ptr<Stream>> streams;  // every live stream, legacy ones included
    std::vector<Stream*> legacy;                   // per device, created on first use
};

// Never destroyed: worker threads may still wait on these while the process exits.
Registry& reg() {
    static Registry* r = new Registry;
    return *r;
}

void complete(const std::shared_ptr<Mark>& m) {
    std::lock_guard<std::mutex> lk(mark_mutex());
    m->ms = now_ms();
    m->done = true;
    mark_cv().notify_all();
}

void worker(std::shared_ptr<Stream> s) {
    std::unique_lock<std::mutex> lk(s->mu);
    for (;;) {
        s->cv.wait(lk, [&] { return !s->queue.empty() || s->closing; });
        if (s->queue.empty()) return;  // closing and drained
        Stream::Item item = std::move(s->queue.front());
        s->queue.pop_front();
        lk.unlock();
        if (item.op) item.op();
        item.op = nullptr;  // release captured state before reporting completion
        lk.lock();
        s->pending--;
        if (item.mark) {
            lk.unlock();
            complete(item.mark);
            lk.lock();
        }
    }
}

std::shared_ptr<Stream> make_stream(int device, unsigned flags, int priority, bool legacy) {
    auto s = std::make_shared<Stream>();
    s->device = device, s->flags = flags, s->priority = priority, s->legacy = legacy;
    std::thread(worker, s).detach();  // the thread keeps s alive until it drains
    return s;
}

// Appends an op or a mark with no implicit synchronisation.
void push(Stream* s, std::function<void()> op, std::shared_ptr<Mark> mark = nullptr) {
    std::lock_guard<std::mutex> lk(s->mu);
    s->queue.push_back(Stream::Item{std::move(op), std::move(mark)});
    s->pending++;
    s->cv.notify_one();
}

std::shared_ptr<Mark> push_mark(Stream* s) {
    auto m = std::make_shared<Mark>();
    push(s, nullptr, m);
    return m;
}

Stream* legacy_stream(int device) {
    Registry& r = reg();
    std::lock_guard<std::mutex> lk(r.mu);
    if (r.legacy.size() <= static_cast<size_t>(device)) r.legacy.resize(device + 1, nullptr);
    if (!r.legacy[device]) {
        auto s = make_stream(device, cudaStreamDefault, 0, true);
        r.streams.push_back(s);
        r.legacy[device] = s.get();
    }
    return r.legacy[device];
}

std::vector<std::shared_ptr<Stream>> streams_of(int device) {
    Registry& r = reg();
    std::lock_guard<std::mutex> lk(r.mu);
    std::vector<std::shared_ptr<Stream>> out;
    for (auto& s : r.streams)
        if (device < 0 || s->device == device) out.push_back(s);
    return out;
}

struct Event {
    unsigned flags = 0;
    int device = 0;
    std::shared_ptr<Mark> last;  // the latest record; none: the event counts as complete
};

std::mutex& event_mutex() {
    static std::mutex* m = new std::mutex;
    return *m;
}

}  // namespace

std::mutex& mark_mutex() {
    static std::mutex* m = new std::mutex;
    return *m;
}

std::condition_variable& mark_cv() {
    static std::condition_variable* cv = new std::condition_variable;
    return *cv;
}

void wait_mark(const std::shared_ptr<Mark>& m) {
    std::unique_lock<std::mutex> lk(mark_mutex());
    mark_cv().wait(lk, [&] { return m->done; });
}

Stream* resolve(cudaStream_t h) {
    if (h == nullptr || h == cudaStreamLegacy || h == cudaStreamPerThread) return legacy_stream(current_device());
    Registry& r = reg();
    std::lock_guard<std::mutex> lk(r.mu);
    for (auto& s : r.streams)
        if (s.get() == reinterpret_cast<Stream*>(h)) return s.get();
    return nullptr;
}

int stream_device(Stream* s) { return s->device; }

// The legacy stream's implicit waits, before an item on s.
static void implicit_waits(Stream* s) {
    // The legacy stream waits for every blocking stream of its device, and they for it.
    if (s->legacy) {
        for (auto& b : streams_of(s->device))
            if (!b->legacy && !(b->flags & cudaStreamNonBlocking)) {
                auto m = push_mark(b.get());
                push(s, [m] { wait_mark(m); });
            }
    } else if (!(s->flags & cudaStreamNonBlocking)) {
        auto m = push_mark(legacy_stream(s->device));
        push(s, [m] { wait_mark(m); });
    }
}

void enqueue(Stream* s, std::function<void()> op) {
    implicit_waits(s);
    push(s, std::move(op));
}

std::shared_ptr<Mark> record(Stream* s) {
    implicit_waits(s);
    return push_mark(s);
}

void synchronize_device(int device) {
    for (auto& s : streams_of(device)) wait_mark(push_mark(s.get()));
}

void synchronize_all() { synchronize_device(-1); }

}  // namespace nbemu

using namespace nbemu;

namespace {

Stream* stream_or_fail(cudaStream_t h, const char* api) {
    Stream* s = resolve(h);
    if (!s) fail(cudaErrorInvalidResourceHandle, "%s: %p is not a live stream", api, static_cast<void*>(h));
    return s;
}

Event* as_event(cudaEvent_t e) { return reinterpret_cast<Event*>(e); }

}  // namespace

extern "C" {

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* out, unsigned int flags, int priority) {
    if (!out || (flags & ~cudaStreamNonBlocking)) return fail(cudaErrorInvalidValue, "cudaStreamCreate: flags %u", flags);
    priority = std::min(0, std::max(-5, priority));  // the range cudaDeviceGetStreamPriorityRange reports
    auto s = make_stream(current_device(), flags, priority, false);
    {
        std::lock_guard<std::mutex> lk(reg().mu);
        reg().streams.push_back(s);
    }
    *out = reinterpret_cast<cudaStream_t>(s.get());
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* out, unsigned int flags) {
    return cudaStreamCreateWithPriority(out, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t* out) { return cudaStreamCreateWithPriority(out, cudaStreamDefault, 0); }

// Returns at once; work already queued still runs, then the worker exits.
cudaError_t cudaStreamDestroy(cudaStream_t h) {
    Registry& r = reg();
    std::shared_ptr<Stream> s;
    {
        std::lock_guard<std::mutex> lk(r.mu);
        auto it = std::find_if(r.streams.begin(), r.streams.end(),
                               [&](const std::shared_ptr<Stream>& p) { return p.get() == reinterpret_cast<Stream*>(h); });
        if (h == nullptr || it == r.streams.end() || (*it)->legacy)
            return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: %p is not a live stream", static_cast<void*>(h));
        s = *it;
        r.streams.erase(it);
    }
    std::lock_guard<std::mutex> lk(s->mu);
    s->closing = true;
    s->cv.notify_one();
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t h) {
    Stream* s = stream_or_fail(h, "cudaStreamSynchronize");
    if (!s) return cudaErrorInvalidResourceHandle;
    wait_mark(record(s));
    cudaError_t err = sticky_error(s->device);
    return err == cudaSuccess ? err : fail(err, "%s", cudaGetErrorString(err));
}

cudaError_t cudaStreamQuery(cudaStream_t h) {
    Stream* s = stream_or_fail(h, "cudaStreamQuery");
    if (!s) return cudaErrorInvalidResourceHandle;
    if (cudaError_t err = sticky_error(s->device)) return fail(err, "%s", cudaGetErrorString(err));
    std::lock_guard<std::mutex> lk(s->mu);
    return s->pending == 0 ? cudaSuccess : cudaErrorNotReady;  // NotReady is not an error: last error untouched
}

cudaError_t cudaStreamWaitEvent(cudaStream_t h, cudaEvent_t e, unsigned int) {
    Stream* s = stream_or_fail(h, "cudaStreamWaitEvent");
    if (!s) return cudaErrorInvalidResourceHandle;
    if (!e) return fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: NULL event");
    std::shared_ptr<Mark> m;
    {
        std::lock_guard<std::mutex> lk(event_mutex());
        m = as_event(e)->last;  // the record current at the call, as CUDA specifies
    }
    if (m) enqueue(s, [m] { wait_mark(m); });
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t h, int* priority) {
    Stream* s = stream_or_fail(h, "cudaStreamGetPriority");
    if (!s) return cudaErrorInvalidResourceHandle;
    *priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t h, unsigned int* flags) {
    Stream* s = stream_or_fail(h, "cudaStreamGetFlags");
    if (!s) return cudaErrorInvalidResourceHandle;
    *flags = s->flags;
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void* data) {
    Stream* s = stream_or_fail(h, "cudaLaunchHostFunc");
    if (!s) return cudaErrorInvalidResourceHandle;
    enqueue(s, [fn, data] { fn(data); });
    return cudaSuccess;
}

// Test hook (exported from the emulated plugin only): cudaLaunchHostFunc for test libraries that
// stand in for a device library (tests/nccl_standin), which cannot see the plugin's hidden symbols.
__attribute__((visibility("default"))) int nbemu_launch_host_func(void* stream, void (*fn)(void*), void* data) {
    return static_cast<int>(cudaLaunchHostFunc(static_cast<cudaStream_t>(stream), fn, data));
}

cudaError_t cudaDeviceSynchronize(void) {
    int d = current_device();
    synchronize_device(d);
    cudaError_t err = sticky_error(d);
    return err == cudaSuccess ? err : fail(err, "%s", cudaGetErrorString(err));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* out, unsigned int flags) {
    if (!out || (flags & ~(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)))
        return fail(cudaErrorInvalidValue, "cudaEventCreateWithFlags: flags %u", flags);
    Event* e = new Event;
    e->flags = flags;
    e->device = current_device();
    *out = reinterpret_cast<cudaEvent_t>(e);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* out) { return cudaEventCreateWithFlags(out, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!e) return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: NULL event");
    delete as_event(e);  // queued records and waits hold their own mark
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t h) {
    if (!e) return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: NULL event");
    Stream* s = stream_or_fail(h, "cudaEventRecord");
    if (!s) return cudaErrorInvalidResourceHandle;
    auto m = record(s);
    std::lock_guard<std::mutex> lk(event_mutex());
    as_event(e)->last = m;
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
    if (!e) return fail(cudaErrorInvalidResourceHandle, "cudaEventQuery: NULL event");
    std::shared_ptr<Mark> m;
    {
        std::lock_guard<std::mutex> lk(event_mutex());
        m = as_event(e)->last;
    }
    if (!m) return cudaSuccess;
    std::lock_guard<std::mutex> lk(mark_mutex());
    return m->done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    if (!e) return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: NULL event");
    std::shared_ptr<Mark> m;
    int device;
    {
        std::lock_guard<std::mutex> lk(event_mutex());
        m = as_event(e)->last;
        device = as_event(e)->device;
    }
    if (m) wait_mark(m);
    cudaError_t err = sticky_error(device);
    return err == cudaSuccess ? err : fail(err, "%s", cudaGetErrorString(err));
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms || !start || !end) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: NULL argument");
    std::shared_ptr<Mark> a, b;
    {
        std::lock_guard<std::mutex> lk(event_mutex());
        if ((as_event(start)->flags | as_event(end)->flags) & cudaEventDisableTiming)
            return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was created without timing");
        a = as_event(start)->last, b = as_event(end)->last;
    }
    if (!a || !b) return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
    std::lock_guard<std::mutex> lk(mark_mutex());
    if (!a->done || !b->done) return cudaErrorNotReady;
    *ms = static_cast<float>(b->ms - a->ms);
    return cudaSuccess;
}

}  // extern "C"
