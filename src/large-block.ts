// Buffers that glibc's malloc never lets shape its heap: what the body reader and the embedded store hold for a while
// and then drop, megabytes at a time.

/** glibc's largest dynamic mmap threshold on 64-bit systems (mallopt(3), DEFAULT_MMAP_THRESHOLD_MAX: 32 MiB). */
export const MMAP_THRESHOLD_MAX = 32 * 1024 * 1024;

/**
 * A buffer of `size` bytes in a block past MMAP_THRESHOLD_MAX. glibc's malloc serves a large block by mmap and, when
 * it is freed, raises its mmap threshold to the block's size (up to 32 MiB) for the rest of the process, and its
 * heap's trim threshold to twice that (mallopt(3)): every later block below that size then comes from the heap, which
 * keeps up to twice as much freed memory rather than give it back. A block past the largest threshold moves neither;
 * only the pages written become resident (other allocators simply reserve more address space). V8 counts the whole
 * block against its heap's external memory, though, so that it is for buffers of megabytes, not for many small ones.
 * A size past MMAP_THRESHOLD_MAX gets a block of its own size, which moves nothing either.
 */
export function pastMmapThreshold(size: number): Buffer {
  if (size > MMAP_THRESHOLD_MAX) return Buffer.allocUnsafe(size);
  return Buffer.allocUnsafe(MMAP_THRESHOLD_MAX + 64 * 1024).subarray(0, size);
}
