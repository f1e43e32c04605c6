/* safetensors.h: the safetensors header, parsed and validated (safetensors_header.c),
 * and the checkpoint object that nb_load hands out (checkpoint.c).
 *
 * A file is an 8-byte little-endian header length n, n bytes of JSON
 * ({name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}),
 * then the data section that the offsets index. */
#ifndef NABLA_SAFETENSORS_H_
#define NABLA_SAFETENSORS_H_

#include "../core/internal.h"

#define NB_ST_MAX_HEADER ((int64_t)100 << 20) /* the safetensors package's own limit */

typedef struct {
    char* name;
    int32_t dtype;
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    int64_t begin, end; /* bytes into the data section */
} nb_st_entry;

typedef struct {
    nb_st_entry* entries; /* in header order */
    int64_t n;
    char** meta_keys;
    char** meta_values;
    int64_t n_meta;
} nb_st_header;

/* Parses and checks header text (n bytes) against a data section of data_size bytes: every entry's
 * dtype, shape, offsets and overlaps. Errors read "<op>: <source> is not a valid safetensors file: ..."
 * and name the tensor. On failure *h is left empty. */
NB_INTERNAL nb_status nb_st_parse(const char* op, const char* source, const char* text, int64_t n, int64_t data_size,
                                  nb_st_header* h);
NB_INTERNAL void nb_st_header_free(nb_st_header* h);
/* The safetensors name of a dtype ("F32", "BOOL", ...). */
NB_INTERNAL const char* nb_st_dtype_name(int32_t dtype);
/* Whether a NUL-terminated string is valid UTF-8 (names and metadata must be). */
NB_INTERNAL bool nb_st_utf8(const char* s);

#endif /* NABLA_SAFETENSORS_H_ */
