/* pack_buffer.c: see pack_buffer.h. */
#include "pack_buffer.h"

#include <pthread.h>
#include <stdlib.h>

#include "../alloc/cpu_allocator.h"

typedef struct {
    void* data;
    size_t bytes;
} buffer;

static pthread_key_t buffer_key;
static pthread_once_t buffer_once = PTHREAD_ONCE_INIT;

static void buffer_free(void* p) {
    free(((buffer*)p)->data);
    free(p);
}

static void buffer_key_make(void) { (void)pthread_key_create(&buffer_key, buffer_free); }

void* nb_pack_buffer(size_t bytes) {
    (void)pthread_once(&buffer_once, buffer_key_make);
    buffer* b = pthread_getspecific(buffer_key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b || pthread_setspecific(buffer_key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (b->bytes < bytes || b->data == NULL) {
        /* whole 2 MiB pages, as huge pages where the kernel allows: the GEMM
         * kernels' streams through the packed panels then miss the TLB far less */
        const size_t huge = (size_t)2 << 20, size = (bytes + huge - 1) / huge * huge + (bytes == 0 ? huge : 0);
        void* p = nb_huge_page_alloc(size);
        if (p == NULL) return NULL;
        free(b->data);
        b->data = p;
        b->bytes = size;
    }
    return b->data;
}
