//! CPU-bound work over a large batch, shared by two threads.
//!
//! Reading and normalising a batch of 1000 leads takes milliseconds of pure computation; the
//! service's machines have more than one core, so a large batch is worked on by the caller's
//! thread and a scoped helper thread together. They take small chunks from a shared counter
//! rather than a fixed half each: when the helper starts late, or a core is busy elsewhere
//! (storing the batch runs at the same time), the other thread simply takes more chunks, and
//! both finish together.
use std::sync::atomic::{AtomicUsize, Ordering};

/// Batches at least this large are shared between two threads.
pub const IN_TWO_FROM: usize = 64;

/// Items per chunk taken from the shared counter.
const CHUNK: usize = 32;

/// Runs `work(offset, part)` over consecutive parts of `items`: in one part on this thread when
/// there are fewer than `IN_TWO_FROM`, else in chunks shared with a helper thread. Answers the
/// parts' results in the order of the parts. A panic in the helper is raised again here.
pub fn in_chunks_on_two_threads<T, R, F>(items: &[T], work: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    if items.len() < IN_TWO_FROM {
        return vec![work(0, items)];
    }
    let next = AtomicUsize::new(0);
    let take_chunks = || {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            let Some(part) = items.get(start..(start + CHUNK).min(items.len())) else {
                return done;
            };
            if part.is_empty() {
                return done;
            }
            done.push((start, work(start, part)));
        }
    };
    let mut parts = std::thread::scope(|scope| {
        let helper = scope.spawn(take_chunks);
        let mut parts = take_chunks();
        match helper.join() {
            Ok(theirs) => parts.extend(theirs),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        parts
    });
    parts.sort_unstable_by_key(|(start, _)| *start);
    parts.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_batches_stay_whole() {
        let parts = in_chunks_on_two_threads(&[1, 2, 3], |offset, part| (offset, part.to_vec()));
        assert_eq!(parts, vec![(0, vec![1, 2, 3])]);
    }

    #[test]
    fn large_batches_keep_their_order_and_offsets() {
        for len in [64, 65, 100, 1000, 1001] {
            let items: Vec<usize> = (0..len).collect();
            let parts = in_chunks_on_two_threads(&items, |offset, part| {
                assert_eq!(part[0], offset);
                part.to_vec()
            });
            assert!(parts.len() > 1);
            assert_eq!(parts.concat(), items);
        }
    }

    #[test]
    #[should_panic(expected = "a bad element")]
    fn a_panic_in_either_thread_reaches_the_caller() {
        let items: Vec<usize> = (0..100).collect();
        in_chunks_on_two_threads(&items, |offset, _| {
            assert!(offset != 64, "a bad element");
        });
    }
}
