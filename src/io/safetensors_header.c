/* safetensors_header.c: a small JSON reader for the safetensors header and the checks
 * that make a file untrusted input nabla can take: dtypes, shapes, sizes with overflow,
 * offsets inside the data section, no overlaps. The header is the only JSON nabla
 * reads, so the reader knows its shape: an object of entries plus __metadata__; any
 * other member of an entry is skipped. Integers keep their text for messages and
 * are read into 128 bits, so 2^64 + 4 is reported as itself. */
#include "safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

#define MAX_DEPTH 64
/* BAD(fmt, op, source, ...): the error for a file that is not valid safetensors */
#define BAD(...) nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s is not a valid safetensors file: " __VA_ARGS__)
#define I128_BIG ((i128)1 << 120) /* stands for an integer of more than 36 digits */

static const char* const st_names[NB_NUM_DTYPES] = {"F32", "F64", "F16", "BF16", "I8", "I16", "I32", "I64", "U8", "BOOL"};

const char* nb_st_dtype_name(int32_t dtype) { return nb_dtype_valid(dtype) ? st_names[dtype] : NULL; }

typedef struct {
    const char* p;
    const char* end;
    const char* start;
    const char* why; /* the first syntax error */
} reader;

static void ws(reader* r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static bool fail(reader* r, const char* why) {
    if (r->why == NULL) r->why = why;
    return false;
}

static bool lit(reader* r, const char* word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return false;
    r->p += n;
    return true;
}

static int hex4(const char* p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char* o, uint32_t cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A JSON string at r->p; *out (when out is non-NULL) gets it decoded, NUL-terminated, malloc'd.
 * A \u0000 would cut a C string short: refused. */
static bool string(reader* r, char** out) {
    if (r->p >= r->end || *r->p != '"') return fail(r, "expected a string");
    const char* q = ++r->p;
    char* s = out ? malloc((size_t)(r->end - q) + 1) : NULL;  /* decoding never grows the text */
    if (out && s == NULL) return fail(r, "out of memory");
    size_t n = 0;
    while (q < r->end && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20) { free(s); return fail(r, "a control character in a string"); }
        if (c != '\\') {
            if (s) s[n] = (char)c;
            n++, q++;
            continue;
        }
        if (++q >= r->end) break;
        char e = *q++;
        const char* simple = strchr("\"\\/bfnrt", e);
        if (e != 0 && simple != NULL) {
            if (s) s[n] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            n++;
            continue;
        }
        if (e != 'u' || r->end - q < 4 || hex4(q) < 0) { free(s); return fail(r, "a bad escape in a string"); }
        uint32_t cp = (uint32_t)hex4(q);
        q += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && r->end - q >= 6 && q[0] == '\\' && q[1] == 'u' && hex4(q + 2) >= 0xDC00 &&
            hex4(q + 2) < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)hex4(q + 2) - 0xDC00);
            q += 6;
        } else if (cp >= 0xD800 && cp < 0xE000) {
            free(s);
            return fail(r, "a lone surrogate in a string");
        }
        if (cp == 0) { free(s); return fail(r, "a NUL character in a string"); }
        char tmp[4];
        size_t k = put_utf8(s ? s + n : tmp, cp);
        n += k;
    }
    if (q >= r->end) { free(s); return fail(r, "an unterminated string"); }
    r->p = q + 1;
    if (s) {
        s[n] = '\0';
        *out = s;
    }
    return true;
}

typedef struct {
    bool is_int;  /* no fraction, exponent or special value */
    i128 v;       /* the integer (I128_BIG when longer than 36 digits) */
    const char* text;
    int len;
} number;

/* A JSON number, or Python's Infinity / -Infinity / NaN (json.dumps writes them). */
static bool num(reader* r, number* out) {
    const char* s = r->p;
    bool neg = r->p < r->end && *r->p == '-';
    if (neg) r->p++;
    out->text = s;
    out->is_int = false;
    out->v = 0;
    if (lit(r, "Infinity") || (!neg && lit(r, "NaN"))) {
        out->len = (int)(r->p - s);
        return true;
    }
    const char* d = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    int digits = (int)(r->p - d);
    if (digits == 0 || (digits > 1 && *d == '0')) return fail(r, "a malformed number");
    out->is_int = true;
    if (r->p < r->end && *r->p == '.') {
        out->is_int = false;
        const char* f = ++r->p;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
        if (r->p == f) return fail(r, "a malformed number");
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        out->is_int = false;
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
        const char* x = r->p;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
        if (r->p == x) return fail(r, "a malformed number");
    }
    out->len = (int)(r->p - s);
    if (out->is_int) {
        if (digits > 36) out->v = I128_BIG;
        else
            for (int i = 0; i < digits; i++) out->v = out->v * 10 + (d[i] - '0');
        if (neg) out->v = -out->v;
    }
    return true;
}

static bool value(reader* r, int depth);

/* Steps over the opening '{' or '[' at r->p; true when the container is empty (its close consumed too). */
static bool enter(reader* r, char close) {
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return true;
    }
    return false;
}

typedef enum { SEP_MORE, SEP_END, SEP_BAD } separator;

/* What follows an item: ',' (another item), the container's close, or a syntax error. */
static separator after_item(reader* r, char close) {
    ws(r);
    if (r->p < r->end && *r->p == ',') {
        r->p++;
        return SEP_MORE;
    }
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return SEP_END;
    }
    fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    return SEP_BAD;
}

/* The ':' after a member's key. */
static bool colon(reader* r) {
    ws(r);
    if (r->p >= r->end || *r->p != ':') return fail(r, "expected ':'");
    r->p++;
    ws(r);
    return true;
}

/* The members of an object or the items of an array, each read by value(). */
static bool container(reader* r, int depth, char open) {
    if (depth > MAX_DEPTH) return fail(r, "nesting too deep");
    char close = open == '{' ? '}' : ']';
    if (enter(r, close)) return true;
    for (;;) {
        ws(r);
        if (open == '{' && (!string(r, NULL) || !colon(r))) return false;
        if (!value(r, depth + 1)) return false;
        separator sep = after_item(r, close);
        if (sep != SEP_MORE) return sep == SEP_END;
    }
}

/* Skips any JSON value. */
static bool value(reader* r, int depth) {
    ws(r);
    if (r->p >= r->end) return fail(r, "unexpected end of the header");
    char c = *r->p;
    if (c == '{' || c == '[') return container(r, depth, c);
    if (c == '"') return string(r, NULL);
    if (lit(r, "true") || lit(r, "false") || lit(r, "null")) return true;
    number n;
    return num(r, &n);
}

/* ---- header entries ---- */

typedef struct {
    const char* text; /* the entry's JSON, for messages */
    int len;
    int32_t dtype;    /* -1: missing or unknown */
    bool has_shape, shape_ok, has_offsets, offsets_ok;
    const char* shape_text;
    int shape_len;
    int32_t ndim;     /* items read (may exceed NB_MAX_DIMS) */
    i128 shape[NB_MAX_DIMS + 1];
    const char* offsets_text;
    int offsets_len;
    int32_t noffsets;
    number offsets[2];
} raw_entry;

/* An array of integers at r->p: up to cap of them into v (+ texts); *count counts all, *ok says all were ints. */
static bool int_array(reader* r, int depth, number* v, int32_t cap, int32_t* count, bool* ok) {
    *count = 0;
    *ok = true;
    if (r->p >= r->end || *r->p != '[') {
        *ok = false;
        return value(r, depth);
    }
    if (enter(r, ']')) return true;
    for (;;) {
        ws(r);
        number n;
        const char* at = r->p;
        bool is_num = r->p < r->end && (*r->p == '-' || (*r->p >= '0' && *r->p <= '9') || *r->p == 'I' || *r->p == 'N');
        if (is_num) {
            if (!num(r, &n)) return false;
            if (!n.is_int) *ok = false;
            else if (*count < cap) v[*count] = n;
        } else {
            r->p = at;
            if (!value(r, depth + 1)) return false;
            *ok = false;
        }
        (*count)++;
        separator sep = after_item(r, ']');
        if (sep != SEP_MORE) return sep == SEP_END;
    }
}

static bool entry(reader* r, raw_entry* e) {
    memset(e, 0, sizeof *e);
    e->dtype = -1;
    e->text = r->p;
    if (r->p >= r->end || *r->p != '{') {
        if (!value(r, 1)) return false;
        e->len = (int)(r->p - e->text);
        return true;
    }
    bool empty = enter(r, '}');
    while (!empty) {
        ws(r);
        char* key = NULL;
        if (!string(r, &key)) return false;
        if (!colon(r)) {
            free(key);
            return false;
        }
        bool ok = true;
        if (strcmp(key, "dtype") == 0 && r->p < r->end && *r->p == '"') {
            char* name = NULL;
            ok = string(r, &name);
            e->dtype = -1;
            for (int32_t d = 0; ok && d < NB_NUM_DTYPES; d++)
                if (strcmp(name, st_names[d]) == 0) e->dtype = d;
            free(name);
        } else if (strcmp(key, "shape") == 0) {
            number dims[NB_MAX_DIMS + 1];
            e->has_shape = true;
            e->shape_text = r->p;
            ok = int_array(r, 2, dims, NB_MAX_DIMS + 1, &e->ndim, &e->shape_ok);
            e->shape_len = (int)(r->p - e->shape_text);
            for (int32_t i = 0; i < e->ndim && i <= NB_MAX_DIMS; i++) e->shape[i] = dims[i].v;
        } else if (strcmp(key, "data_offsets") == 0) {
            e->has_offsets = true;
            e->offsets_text = r->p;
            ok = int_array(r, 2, e->offsets, 2, &e->noffsets, &e->offsets_ok);
            e->offsets_len = (int)(r->p - e->offsets_text);
        } else {
            if (strcmp(key, "dtype") == 0) e->dtype = -1;
            ok = value(r, 2);
        }
        free(key);
        if (!ok) return false;
        separator sep = after_item(r, '}');
        if (sep == SEP_BAD) return false;
        if (sep == SEP_END) break;
    }
    e->len = (int)(r->p - e->text);
    return true;
}

#define SHOW(len) ((len) > 80 ? 80 : (len))

/* The checks of one entry, in the order Python's loader made them. */
static nb_status check_entry(const char* op, const char* source, const char* key, const raw_entry* e,
                             int64_t data_size, nb_st_entry* out) {
    if (e->dtype < 0 || !e->has_shape || !e->has_offsets)
        return BAD("tensor '%s' has an invalid entry %.*s", op, source, key, SHOW(e->len), e->text);
    if (!e->shape_ok)
        return BAD("tensor '%s' has shape %.*s; expected a list of integers", op, source, key, SHOW(e->shape_len),
                   e->shape_text);
    if (!e->offsets_ok || e->noffsets != 2)
        return BAD("tensor '%s' has data_offsets %.*s; expected [begin, end] integers", op, source, key,
                   SHOW(e->offsets_len), e->offsets_text);
    int32_t nd = e->ndim <= NB_MAX_DIMS ? e->ndim : NB_MAX_DIMS + 1;
    for (int32_t i = 0; i < nd; i++)
        if (e->shape[i] < 0)
            return BAD("tensor '%s' has a negative size in shape %.*s", op, source, key, SHOW(e->shape_len),
                       e->shape_text);
    if (e->ndim > NB_MAX_DIMS)
        return BAD("tensor '%s' has %d dims; nabla supports at most %d", op, source, key, (int)e->ndim, NB_MAX_DIMS);
    const char* dname = nb_dtype_name(e->dtype);
    /* PyTorch's storage size rule: a 0 in the shape does not excuse a huge dim */
    i128 extent = nb_dtype_sizes[e->dtype], numel = 1;
    for (int32_t i = 0; i < e->ndim; i++) {
        i128 s = e->shape[i];
        if (s > INT64_MAX || (extent *= (s > 1 ? s : 1)) > INT64_MAX)
            return BAD("tensor '%s' of shape %.*s and dtype %s: Storage size calculation overflowed", op, source, key,
                       SHOW(e->shape_len), e->shape_text, dname);
        numel *= s;
    }
    i128 nbytes = numel * nb_dtype_sizes[e->dtype], begin = e->offsets[0].v, end = e->offsets[1].v;
    if (begin < 0 || end < begin || end - begin != nbytes)
        return BAD("tensor '%s' of shape %.*s and dtype %s has data_offsets [%.*s, %.*s], which do not hold its %lld "
                   "bytes", op, source, key, SHOW(e->shape_len), e->shape_text, dname, e->offsets[0].len,
                   e->offsets[0].text, e->offsets[1].len, e->offsets[1].text, (long long)nbytes);
    if (end > data_size)
        return BAD("tensor '%s' ends at byte %.*s of a data section of %lld bytes (truncated?)", op, source, key,
                   e->offsets[1].len, e->offsets[1].text, (long long)data_size);
    out->dtype = e->dtype;
    out->ndim = e->ndim;
    for (int32_t i = 0; i < e->ndim; i++) out->shape[i] = (int64_t)e->shape[i];
    out->begin = (int64_t)begin;
    out->end = (int64_t)end;
    return NB_OK;
}

/* __metadata__: null or an object of strings. */
static nb_status metadata(const char* op, const char* source, reader* r, nb_st_header* h) {
    const char* at = r->p;
    if (lit(r, "null")) return NB_OK;
    if (r->p >= r->end || *r->p != '{') {
        if (!value(r, 1)) return NB_ERR_INVALID_ARGUMENT; /* reported as bad JSON by the caller */
        return BAD("__metadata__ is %.*s, not a JSON object", op, source, SHOW((int)(r->p - at)), at);
    }
    if (enter(r, '}')) return NB_OK;
    for (;;) {
        ws(r);
        char *key = NULL, *val = NULL;
        if (!string(r, &key)) return NB_ERR_INVALID_ARGUMENT;
        if (!colon(r)) {
            free(key);
            return NB_ERR_INVALID_ARGUMENT;
        }
        if (r->p >= r->end || *r->p != '"') {
            const char* v = r->p;
            nb_status st = value(r, 2) ? BAD("__metadata__ value of '%s' is %.*s, not a string", op, source, key,
                                             SHOW((int)(r->p - v)), v)
                                       : NB_ERR_INVALID_ARGUMENT;
            free(key);
            return st;
        }
        if (!string(r, &val)) {
            free(key);
            return NB_ERR_INVALID_ARGUMENT;
        }
        char** k2 = realloc(h->meta_keys, sizeof(char*) * (size_t)(h->n_meta + 1));
        if (k2) h->meta_keys = k2;
        char** v2 = k2 ? realloc(h->meta_values, sizeof(char*) * (size_t)(h->n_meta + 1)) : NULL;
        if (v2) h->meta_values = v2;
        if (!k2 || !v2) {
            free(key);
            free(val);
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory reading the metadata of %s", op, source);
        }
        h->meta_keys[h->n_meta] = key;
        h->meta_values[h->n_meta++] = val;
        separator sep = after_item(r, '}');
        if (sep != SEP_MORE) return sep == SEP_END ? NB_OK : NB_ERR_INVALID_ARGUMENT;
    }
}

static bool utf8_valid(const unsigned char* s, int64_t n) {
    for (int64_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int k;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1Fu;
        else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0Fu;
        else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07u;
        else return false;
        if (n - i <= k) return false;
        for (int j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (s[i + j] & 0x3Fu);
        }
        if ((k == 1 && cp < 0x80) || (k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
            (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += k + 1;
    }
    return true;
}

bool nb_st_utf8(const char* s) { return utf8_valid((const unsigned char*)s, (int64_t)strlen(s)); }

void nb_st_header_free(nb_st_header* h) {
    for (int64_t i = 0; i < h->n; i++) free(h->entries[i].name);
    for (int64_t i = 0; i < h->n_meta; i++) {
        free(h->meta_keys[i]);
        free(h->meta_values[i]);
    }
    free(h->entries);
    free(h->meta_keys);
    free(h->meta_values);
    memset(h, 0, sizeof *h);
}

static int by_begin(const void* a, const void* b) {
    const nb_st_entry *x = *(nb_st_entry* const*)a, *y = *(nb_st_entry* const*)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : (x->end > y->end) - (x->end < y->end);
}

/* Two tensors may not share bytes (empty ones occupy none); names are unique. */
static nb_status check_layout(const char* op, const char* source, nb_st_header* h) {
    nb_st_entry** spans = malloc(sizeof(nb_st_entry*) * (size_t)(h->n + 1));
    if (spans == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory checking %s", op, source);
    int64_t m = 0;
    for (int64_t i = 0; i < h->n; i++)
        if (h->entries[i].end > h->entries[i].begin) spans[m++] = &h->entries[i];
    qsort(spans, (size_t)m, sizeof *spans, by_begin);
    nb_status st = NB_OK;
    for (int64_t i = 0; i + 1 < m && st == NB_OK; i++)
        if (spans[i + 1]->begin < spans[i]->end)
            st = BAD("tensors '%s' and '%s' overlap: data_offsets [%lld, %lld] and [%lld, %lld]", op, source,
                     spans[i]->name, spans[i + 1]->name, (long long)spans[i]->begin, (long long)spans[i]->end,
                     (long long)spans[i + 1]->begin, (long long)spans[i + 1]->end);
    free(spans);
    for (int64_t i = 0; i < h->n && st == NB_OK; i++)
        for (int64_t j = i + 1; j < h->n && st == NB_OK; j++)
            if (strcmp(h->entries[i].name, h->entries[j].name) == 0)
                st = BAD("tensor '%s' appears twice in the header", op, source, h->entries[i].name);
    return st;
}

static nb_status parse(const char* op, const char* source, reader* r, int64_t data_size, nb_st_header* h) {
    ws(r);
    if (r->p >= r->end || *r->p != '{') {
        if (!value(r, 0)) return NB_ERR_INVALID_ARGUMENT;
        return BAD("the header is not a JSON object", op, source);
    }
    bool empty = enter(r, '}');
    while (!empty) {
        ws(r);
        char* key = NULL;
        if (!string(r, &key)) return NB_ERR_INVALID_ARGUMENT;
        if (!colon(r)) {
            free(key);
            return NB_ERR_INVALID_ARGUMENT;
        }
        nb_status st = NB_OK;
        if (strcmp(key, "__metadata__") == 0) {
            free(key);
            if ((st = metadata(op, source, r, h)) != NB_OK) return st;
        } else {
            raw_entry e;
            if (!entry(r, &e)) {
                free(key);
                return NB_ERR_INVALID_ARGUMENT;
            }
            nb_st_entry* grown = realloc(h->entries, sizeof(nb_st_entry) * (size_t)(h->n + 1));
            if (grown == NULL) {
                free(key);
                return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory reading the header of %s", op, source);
            }
            h->entries = grown;
            nb_st_entry* out = &h->entries[h->n];
            memset(out, 0, sizeof *out);
            st = check_entry(op, source, key, &e, data_size, out);
            if (st != NB_OK) {
                free(key);
                return st;
            }
            out->name = key;
            h->n++;
        }
        separator sep = after_item(r, '}');
        if (sep == SEP_BAD) return NB_ERR_INVALID_ARGUMENT;
        if (sep == SEP_END) break;
    }
    ws(r);
    if (r->p != r->end) {
        fail(r, "text after the header object");
        return NB_ERR_INVALID_ARGUMENT;
    }
    return check_layout(op, source, h);
}

nb_status nb_st_parse(const char* op, const char* source, const char* text, int64_t n, int64_t data_size,
                      nb_st_header* h) {
    memset(h, 0, sizeof *h);
    if (!utf8_valid((const unsigned char*)text, n))
        return BAD("the header is not valid JSON (it is not UTF-8 text)", op, source);
    reader r = {.p = text, .end = text + n, .start = text, .why = NULL};
    nb_status st = parse(op, source, &r, data_size, h);
    if (st != NB_OK && r.why != NULL)
        st = BAD("the header is not valid JSON (%s at byte %lld)", op, source, r.why, (long long)(r.p - r.start));
    if (st != NB_OK) nb_st_header_free(h);
    return st;
}
