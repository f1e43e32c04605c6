// emu_exec.cpp: running a grid on the CPU. A launch is checked as a GPU checks
// it (block ≤ 1024 threads, grid limits, dynamic shared memory ≤ the opt-in
// limit, kernel pointer arguments in device or pinned memory) and queued on its
// stream; the stream's worker spreads the blocks over a pool of OS threads.
//
// A block runs on one OS thread. Its threads start as plain calls, one after the
// other, on a fiber stack: a kernel that never waits costs a function call per
// thread (the trick HIP-CPU uses). Only when a thread reaches a barrier
// (__syncthreads, __syncwarp, a shuffle) is it suspended on its stack, and the
// scheduler continues on a fresh stack; suspended threads resume when their
// barrier completes (all live threads of the block, or of the warp's mask, have
// arrived). Every stack can run the scheduler, whose state lives in the Block,
// so no thread switch costs more than a register save (no signal-mask syscall).
// Threads that wait at barriers no other thread can reach fail the launch.
#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_emu.h"
#include "emu_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define NBEMU_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define NBEMU_TSAN 1
#endif

namespace nbemu {

thread_local Builtins builtins;

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

namespace {

// ---------------------------------------------------------------- contexts
#if defined(__x86_64__)
// Saves callee-saved registers, MXCSR and the x87 control word on the current
// stack, stores the stack pointer in *from and resumes *to.
struct Ctx {
    void* sp = nullptr;
};
extern "C" void nbemu_switch(Ctx* from, Ctx* to);
extern "C" void nbemu_trampoline();
asm(R"(
    .text
    .globl nbemu_switch
    .hidden nbemu_switch
    .type nbemu_switch,@function
nbemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq (%rsi), %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size nbemu_switch,.-nbemu_switch
    .globl nbemu_trampoline
    .hidden nbemu_trampoline
    .type nbemu_trampoline,@function
nbemu_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size nbemu_trampoline,.-nbemu_trampoline
)");

void ctx_init(Ctx* c, char* base, size_t size, void (*fn)(void*), void* arg) {
    uintptr_t top = (reinterpret_cast<uintptr_t>(base) + size) & ~uintptr_t(15);
    uint64_t* sp = reinterpret_cast<uint64_t*>(top - 64);
    uint32_t mxcsr = __builtin_ia32_stmxcsr();
    sp[0] = mxcsr | (uint64_t(0x037f) << 32);
    sp[1] = 0, sp[2] = 0;                       // r15, r14
    sp[3] = reinterpret_cast<uint64_t>(fn);     // r13
    sp[4] = reinterpret_cast<uint64_t>(arg);    // r12
    sp[5] = 0, sp[6] = 0;                       // rbx, rbp
    sp[7] = reinterpret_cast<uint64_t>(&nbemu_trampoline);
    c->sp = sp;
}

inline void ctx_switch(Ctx* from, Ctx* to) { nbemu_switch(from, to); }
#else
#include <ucontext.h>
// Portable fallback: glibc ucontext (slower: swapcontext also saves the signal mask).
struct Ctx {
    ucontext_t uc;
};
void ctx_init(Ctx* c, char* base, size_t size, void (*fn)(void*), void* arg) {
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = base;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = nullptr;
    makecontext(&c->uc, reinterpret_cast<void (*)()>(fn), 1, arg);  // pointer fits an int pair on LP64 glibc
}
inline void ctx_switch(Ctx* from, Ctx* to) { swapcontext(&from->uc, &to->uc); }
#endif

// ---------------------------------------------------------------- stacks
#if NBEMU_ASAN
constexpr size_t kStackSize = 1 << 20;  // ASan's redzones make frames larger
#else
constexpr size_t kStackSize = 256 << 10;
#endif
constexpr size_t kGuard = 4096;

struct Stack {
    char* base;  // usable memory, above a PROT_NONE guard page
    size_t size;
#if NBEMU_TSAN
    void* tsan_fiber = nullptr;
#endif
};

// ---------------------------------------------------------------- block state
enum : uint8_t { kUnstarted, kRunning, kReady, kWaitBlock, kWaitWarp, kDone };

struct Fiber {
    Ctx ctx;
    Stack* stack = nullptr;
    uint8_t state = kUnstarted;
    uint8_t mma_parity = 0;  // which of its warp's two mma buffers the thread's next mma_sync uses
    int result = 0;  // __syncthreads_count
};

struct Block {
    // the launch
    Thunk thunk = nullptr;
    void* state = nullptr;
    int n = 0;                  // threads
    unsigned bx = 1, by = 1;    // block dims, to turn a linear id into threadIdx
    // scheduling
    std::vector<Fiber> fibers;
    int next = 0, live = 0, cur = 0;
    Stack* cur_stack = nullptr;
    std::vector<int> ready;
    size_t ready_head = 0;
    int block_waiting = 0, block_count = 0;
    std::vector<int> block_waiters;
    std::vector<uint32_t> warp_arrived, warp_live, warp_mask;
    std::vector<unsigned long long> slots;  // 32 per warp
    std::vector<float> mma;                 // 2 x 512 per warp (emu_wmma.h)
    bool deadlock = false;
    Ctx home, fresh, trash;
    std::vector<Stack*> free_stacks, all_stacks;
    void* smem = nullptr;
    size_t smem_size = 0;
#if NBEMU_ASAN
    const void* home_bottom = nullptr;
    size_t home_size = 0;
#endif
#if NBEMU_TSAN
    void* home_fiber = nullptr;
#endif

    ~Block() {
        for (Stack* s : all_stacks) {
#if NBEMU_TSAN
            if (s->tsan_fiber) __tsan_destroy_fiber(s->tsan_fiber);
#endif
#if NBEMU_ASAN
            // frames left their redzones in the shadow memory; a later mapping at these addresses
            // (a Python arena, a malloc'd block) would otherwise read as a stack-buffer-underflow
            __asan_unpoison_memory_region(s->base, s->size);
#endif
            munmap(s->base - kGuard, s->size + kGuard);
            delete s;
        }
        std::free(smem);
    }
};

thread_local std::unique_ptr<Block> tl_block_owner;
thread_local int running_device = 0;      // the device of the grid this OS thread runs blocks of
thread_local bool misaligned_reported = false;  // one report per grid and OS thread
thread_local Block* tl_block = nullptr;

Block* this_block() {
    if (!tl_block) {
        tl_block_owner.reset(new Block);
        tl_block = tl_block_owner.get();
    }
    return tl_block;
}

Stack* get_stack(Block* B) {
    Stack* s;
    if (!B->free_stacks.empty()) {
        s = B->free_stacks.back();
        B->free_stacks.pop_back();
    } else {
        void* m = mmap(nullptr, kStackSize + kGuard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (m == MAP_FAILED) {
            std::fprintf(stderr, "nabla CUDA emulator: cannot map a %zu-byte fiber stack\n", kStackSize);
            std::abort();  // test infrastructure: nothing sensible to continue with
        }
        mprotect(m, kGuard, PROT_NONE);
        s = new Stack{static_cast<char*>(m) + kGuard, kStackSize};
        B->all_stacks.push_back(s);
    }
#if NBEMU_ASAN
    __asan_unpoison_memory_region(s->base, s->size);  // frames abandoned on it left their redzones
#endif
#if NBEMU_TSAN
    if (s->tsan_fiber) __tsan_destroy_fiber(s->tsan_fiber);  // drop the abandoned frames' shadow stack
    s->tsan_fiber = __tsan_create_fiber(0);
#endif
    return s;
}

// Switches from the running stack to `to_stack` (nullptr: the OS thread's own).
// `from` is where the current context is saved; nullptr abandons it.
void switch_to(Block* B, Ctx* from, Ctx* to, Stack* to_stack) {
#if NBEMU_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(from ? &fake : nullptr, to_stack ? to_stack->base : B->home_bottom,
                                   to_stack ? to_stack->size : B->home_size);
#endif
#if NBEMU_TSAN
    __tsan_switch_to_fiber(to_stack ? to_stack->tsan_fiber : B->home_fiber, 0);
#endif
    (void)to_stack;
    ctx_switch(from ? from : &B->trash, to);
#if NBEMU_ASAN
    const void* bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake, &bottom, &size);
#endif
}

void set_thread(Block* B, int t) {
    B->cur = t;
    uint3& ti = builtins.thread_idx;
    if (B->by == 1 && B->n == static_cast<int>(B->bx)) {
        ti.x = t, ti.y = 0, ti.z = 0;
    } else {
        ti.x = t % B->bx;
        ti.y = (t / B->bx) % B->by;
        ti.z = t / (B->bx * B->by);
    }
}

void make_ready(Block* B, int t) {
    B->fibers[t].state = kReady;
    B->ready.push_back(t);
}

void check_block(Block* B) {
    if (B->block_waiting == 0 || B->block_waiting != B->live) return;
    for (int t : B->block_waiters) {
        B->fibers[t].result = B->block_count;
        make_ready(B, t);
    }
    B->block_waiters.clear();
    B->block_waiting = 0;
    B->block_count = 0;
}

void check_warp(Block* B, int w) {
    const uint32_t arrived = B->warp_arrived[w], need = B->warp_live[w] & B->warp_mask[w];
    if (arrived == 0 || (arrived & need) != need) return;
    for (int l = 0; l < 32; l++)
        if (arrived >> l & 1) make_ready(B, w * 32 + l);
    B->warp_arrived[w] = 0;
    B->warp_mask[w] = 0;
}

void run_loop(Block* B);
void fiber_entry(void* b) {
#if NBEMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
    run_loop(static_cast<Block*>(b));
}

// Moves on from a thread that waits (self) or from a stack nobody owns (self ==
// nullptr, abandoned): resumes a ready thread, starts the next unstarted one on a
// fresh stack, or returns to the OS thread when the block is done or stuck.
// Returns only into self (or, with self == nullptr, when unstarted threads remain).
void schedule(Block* B, Fiber* self) {
    if (B->ready_head < B->ready.size()) {
        const int t = B->ready[B->ready_head++];
        if (B->ready_head == B->ready.size()) B->ready.clear(), B->ready_head = 0;
        Fiber& f = B->fibers[t];
        f.state = kRunning;
        set_thread(B, t);
        if (&f == self) return;
        if (!self) B->free_stacks.push_back(B->cur_stack);
        B->cur_stack = f.stack;
        switch_to(B, self ? &self->ctx : nullptr, &f.ctx, f.stack);
        return;
    }
    if (B->next < B->n) {
        if (!self) return;  // the caller's loop starts it on this stack
        Stack* s = get_stack(B);
        B->cur_stack = s;
        ctx_init(&B->fresh, s->base, s->size, fiber_entry, B);
        switch_to(B, &self->ctx, &B->fresh, s);
        return;
    }
    if (B->live > 0) B->deadlock = true;
    if (!self) B->free_stacks.push_back(B->cur_stack);
    switch_to(B, self ? &self->ctx : nullptr, &B->home, nullptr);
}

void thread_done(Block* B, int t) {
    B->fibers[t].state = kDone;
    B->live--;
    const int w = t / 32;
    B->warp_live[w] &= ~(1u << (t % 32));
    if (B->warp_arrived[w]) check_warp(B, w);  // an exit may complete a barrier others wait at
    if (B->block_waiting) check_block(B);
}

void run_loop(Block* B) {
    for (;;) {
        while (B->next < B->n) {
            const int t = B->next++;
            set_thread(B, t);
            B->fibers[t].state = kRunning;
            B->thunk(B->state);
            thread_done(B, B->cur);  // cur: whichever thread's call just returned on this stack
        }
        schedule(B, nullptr);
    }
}

void suspend(Block* B) {
    Fiber* self = &B->fibers[B->cur];
    self->stack = B->cur_stack;
    schedule(B, self);
}

// Runs block `index` of grid; returns false if its threads deadlocked.
bool run_block(Block* B, Thunk thunk, void* state, dim3 grid, dim3 block, size_t smem, int64_t index) {
    B->thunk = thunk, B->state = state;
    B->n = static_cast<int>(block.x * block.y * block.z);
    B->bx = block.x, B->by = block.y;
    const int warps = (B->n + 31) / 32;
    B->fibers.assign(B->n, Fiber{});
    B->next = 0, B->live = B->n, B->cur = 0;
    B->ready.clear(), B->ready_head = 0;
    B->block_waiting = 0, B->block_count = 0;
    B->block_waiters.clear();
    B->warp_arrived.assign(warps, 0);
    B->warp_mask.assign(warps, 0);
    B->warp_live.assign(warps, 0);
    for (int w = 0; w < warps; w++)
        B->warp_live[w] = (B->n - w * 32 >= 32) ? 0xffffffffu : ((1u << (B->n - w * 32)) - 1);
    B->slots.resize(static_cast<size_t>(warps) * 32);
    if (B->mma.size() < static_cast<size_t>(warps) * 1024) B->mma.resize(static_cast<size_t>(warps) * 1024);
    B->deadlock = false;
    if (smem != B->smem_size) {  // exactly the requested size, so ASan sees an overrun
        std::free(B->smem);
        B->smem = smem ? std::malloc(smem) : nullptr;
        B->smem_size = smem;
    }
    builtins.block_dim = uint3{block.x, block.y, block.z};
    builtins.grid_dim = uint3{grid.x, grid.y, grid.z};
    builtins.block_idx.x = static_cast<unsigned>(index % grid.x);
    builtins.block_idx.y = static_cast<unsigned>((index / grid.x) % grid.y);
    builtins.block_idx.z = static_cast<unsigned>(index / (static_cast<int64_t>(grid.x) * grid.y));
    Stack* s = get_stack(B);
    B->cur_stack = s;
    ctx_init(&B->fresh, s->base, s->size, fiber_entry, B);
    switch_to(B, &B->home, &B->fresh, s);
    if (!B->deadlock) return true;
    for (Fiber& f : B->fibers)  // reclaim the stuck threads' stacks
        if (f.state != kDone && f.state != kUnstarted && f.stack) B->free_stacks.push_back(f.stack);
    return false;
}

void init_home(Block* B) {
#if NBEMU_ASAN
    if (!B->home_bottom) {
        pthread_attr_t a;
        void* addr = nullptr;
        size_t size = 0;
        pthread_getattr_np(pthread_self(), &a);
        pthread_attr_getstack(&a, &addr, &size);
        pthread_attr_destroy(&a);
        B->home_bottom = addr, B->home_size = size;
    }
#endif
#if NBEMU_TSAN
    if (!B->home_fiber) B->home_fiber = __tsan_get_current_fiber();
#endif
    (void)B;
}

// ---------------------------------------------------------------- grids
struct Grid {
    const char* name;
    int device;
    Thunk thunk;
    void* state;
    void (*destroy)(void*);
    dim3 grid, block;
    size_t smem;
    int64_t total;
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::atomic<int64_t> stuck_block{-1};
};

void run_blocks(Grid& G) {
    Block* B = this_block();
    init_home(B);
    running_device = G.device;
    misaligned_reported = false;
    for (;;) {
        const int64_t i = G.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= G.total || G.failed.load(std::memory_order_relaxed)) break;
        if (!run_block(B, G.thunk, G.state, G.grid, G.block, G.smem, i)) {
            G.stuck_block = i;
            G.failed = true;
        }
    }
}

// Helper OS threads that take blocks of the grid being run (one grid at a time;
// a second stream's grid meanwhile runs on its own worker alone).
struct Pool {
    std::mutex mu, busy;
    std::condition_variable cv, done_cv;
    Grid* job = nullptr;
    uint64_t gen = 0;
    int active = 0, helpers = 0;
};

Pool& pool() {
    static Pool* p = [] {
        Pool* q = new Pool;
        const char* v = std::getenv("NABLA_EMU_THREADS");
        int n = v && *v ? std::atoi(v) : static_cast<int>(std::thread::hardware_concurrency());
        q->helpers = std::max(0, std::min(n, 64) - 1);
        for (int i = 0; i < q->helpers; i++)
            std::thread([q] {
                uint64_t seen = 0;
                std::unique_lock<std::mutex> lk(q->mu);
                for (;;) {
                    q->cv.wait(lk, [&] { return q->job && q->gen != seen; });
                    seen = q->gen;
                    Grid* g = q->job;
                    q->active++;
                    lk.unlock();
                    run_blocks(*g);
                    lk.lock();
                    if (--q->active == 0) q->done_cv.notify_all();
                }
            }).detach();
        return q;
    }();
    return *p;
}

void run_grid(Grid& G) {
    Pool& P = pool();
    if (G.total > 1 && P.helpers > 0 && P.busy.try_lock()) {
        {
            std::lock_guard<std::mutex> lk(P.mu);
            P.job = &G;
            P.gen++;
        }
        P.cv.notify_all();
        run_blocks(G);
        std::unique_lock<std::mutex> lk(P.mu);
        P.job = nullptr;
        P.done_cv.wait(lk, [&] { return P.active == 0; });
        lk.unlock();
        P.busy.unlock();
    } else {
        run_blocks(G);
    }
    if (G.failed) {
        char msg[512];
        const int64_t b = G.stuck_block;
        std::snprintf(msg, sizeof msg,
                      "%s: the threads of block %lld wait at barriers (__syncthreads, __syncwarp, shuffles) that the "
                      "block's other threads never reach",
                      G.name, static_cast<long long>(b));
        fail_async(G.device, cudaErrorLaunchFailure, msg);
    }
}

struct SmemLimits {
    std::mutex mu;
    std::map<const void*, int> max_dynamic;  // cudaFuncAttributeMaxDynamicSharedMemorySize per kernel
};

SmemLimits& smem_limits() {
    static SmemLimits* s = new SmemLimits;
    return *s;
}

constexpr size_t kDefaultSmem = 48 << 10, kOptinSmem = 227 << 10;

}  // namespace

// ---------------------------------------------------------------- kernel-side services
void sync_block() {
    Block* B = tl_block;
    B->fibers[B->cur].state = kWaitBlock;
    B->block_waiters.push_back(B->cur);
    B->block_waiting++;
    check_block(B);
    suspend(B);
}

int sync_block_count(int predicate) {
    Block* B = tl_block;
    B->block_count += predicate != 0;
    sync_block();
    return B->fibers[B->cur].result;
}

void sync_warp(unsigned mask) {
    Block* B = tl_block;
    const int t = B->cur, w = t / 32;
    B->fibers[t].state = kWaitWarp;
    B->warp_arrived[w] |= 1u << (t % 32);
    B->warp_mask[w] |= mask;
    check_warp(B, w);
    suspend(B);
}

unsigned long long warp_exchange(unsigned mask, unsigned long long v, int src) {
    Block* B = tl_block;
    const int t = B->cur, w = t / 32;
    B->slots[w * 32 + t % 32] = v;
    sync_warp(mask);
    const unsigned long long r = B->slots[w * 32 + (src & 31)];
    sync_warp(mask);  // nobody overwrites a slot before every lane has read
    return r;
}

unsigned warp_ballot(unsigned mask, int predicate) {
    Block* B = tl_block;
    const int t = B->cur, w = t / 32;
    B->slots[w * 32 + t % 32] = predicate != 0;
    sync_warp(mask);
    unsigned r = 0;
    const uint32_t live = B->warp_live[w] & mask;
    for (int l = 0; l < 32; l++)
        if ((live >> l & 1) && B->slots[w * 32 + l]) r |= 1u << l;
    sync_warp(mask);
    return r;
}

unsigned lane_id() { return static_cast<unsigned>(tl_block->cur % 32); }

float* warp_mma_buffer() {
    Block* B = tl_block;
    Fiber& f = B->fibers[B->cur];
    float* buf = B->mma.data() + (static_cast<size_t>(B->cur / 32) * 2 + f.mma_parity) * 512;
    f.mma_parity ^= 1;
    return buf;
}

void* dynamic_shared() { return tl_block->smem; }

cudaError_t launch(const char* name, const void* func, dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                   Thunk thunk, void* state, void (*destroy)(void*), const void* const* pointers, int npointers) {
    auto reject = [&](cudaError_t err) {
        destroy(state);
        return err;
    };
    const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64)
        return reject(fail(cudaErrorInvalidConfiguration,
                           "%s: block (%u, %u, %u) is not a valid CUDA block: at most 1024 threads, dims at most "
                           "(1024, 1024, 64)",
                           name, block.x, block.y, block.z));
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
        return reject(fail(cudaErrorInvalidConfiguration,
                           "%s: grid (%u, %u, %u) is not a valid CUDA grid: dims from 1 to (2^31 - 1, 65535, 65535)",
                           name, grid.x, grid.y, grid.z));
    size_t limit = kDefaultSmem;
    {
        SmemLimits& L = smem_limits();
        std::lock_guard<std::mutex> lk(L.mu);
        auto it = L.max_dynamic.find(func);
        if (it != L.max_dynamic.end()) limit = static_cast<size_t>(it->second);
    }
    if (smem > limit)
        return reject(fail(cudaErrorInvalidValue,
                           "%s: %zu bytes of dynamic shared memory requested, the limit is %zu (raise it to at most "
                           "%zu with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize))",
                           name, smem, limit, kOptinSmem));
    Stream* s = resolve(stream);
    if (!s)
        return reject(fail(cudaErrorInvalidResourceHandle, "%s: stream %p is not a live stream", name,
                           static_cast<void*>(stream)));
    for (int i = 0; i < npointers; i++) {
        const void* p = pointers[i];
        if (!p) continue;
        bool inside = false;
        Mem k = classify(p, 0, &inside);
        if (k == Mem::kPageable && p != nullptr)  // one past the end of an allocation is a valid bound
            k = classify(static_cast<const char*>(p) - 1, 1, &inside);
        if (k == Mem::kPageable)
            return reject(fail(cudaErrorInvalidValue,
                               "%s: pointer argument %d (%p) is neither device nor pinned host memory; a GPU would "
                               "fault on it",
                               name, i, p));
    }
    if (cudaError_t err = sticky_error(stream_device(s))) return reject(fail(err, "%s", cudaGetErrorString(err)));
    count_launch();
    auto G = std::make_shared<Grid>();
    G->name = name, G->device = stream_device(s), G->thunk = thunk, G->state = state, G->destroy = destroy;
    G->grid = grid, G->block = block, G->smem = smem;
    G->total = static_cast<int64_t>(grid.x) * grid.y * grid.z;
    enqueue(s, [G] {
        run_grid(*G);
        G->destroy(G->state);
    });
    return cudaSuccess;
}

}  // namespace nbemu

extern "C" cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    using namespace nbemu;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || static_cast<size_t>(value) > kOptinSmem)
            return fail(cudaErrorInvalidValue,
                        "cudaFuncSetAttribute: %d bytes of dynamic shared memory, the device allows at most %zu", value,
                        kOptinSmem);
        std::lock_guard<std::mutex> lk(smem_limits().mu);
        smem_limits().max_dynamic[func] = value;
    }
    return cudaSuccess;
}

// ---------------------------------------------------------------- misaligned accesses
// Kernels are compiled with -fsanitize=alignment; this handler (instead of the
// UBSan runtime) turns a misaligned typed access, such as a 16-byte vector load
// from an address that is not 16-byte aligned, into the fault a GPU raises.
namespace {
struct SourceLocation {
    const char* file;
    uint32_t line, column;
};
struct TypeDescriptor {
    uint16_t kind, info;
    char name[1];
};
struct TypeMismatchData {
    SourceLocation loc;
    const TypeDescriptor* type;
    unsigned char log_alignment;
    unsigned char check_kind;
};
void misaligned(TypeMismatchData* d, uintptr_t ptr) {
    if (nbemu::misaligned_reported) return;
    nbemu::misaligned_reported = true;
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s:%u: misaligned access to %p for type %s, which requires %u-byte alignment",
                  d->loc.file, d->loc.line, reinterpret_cast<void*>(ptr), d->type->name, 1u << d->log_alignment);
    std::fprintf(stderr, "nabla CUDA emulator: %s\n", msg);
    nbemu::fail_async(nbemu::running_device, cudaErrorMisalignedAddress, msg);
}
}  // namespace

void nbemu::wmma_misaligned(const char* op, const void* p, unsigned ldm) {
    if (misaligned_reported) return;
    misaligned_reported = true;
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "wmma::%s: pointer %p with leading dimension %u: the pointer must be 32-byte aligned and the "
                  "leading dimension a multiple of 16 bytes",
                  op, p, ldm);
    std::fprintf(stderr, "nabla CUDA emulator: %s\n", msg);
    fail_async(running_device, cudaErrorMisalignedAddress, msg);
}

extern "C" {
void __ubsan_handle_type_mismatch_v1(TypeMismatchData* d, uintptr_t ptr) { misaligned(d, ptr); }
void __ubsan_handle_type_mismatch_v1_abort(TypeMismatchData* d, uintptr_t ptr) { misaligned(d, ptr); }
}
