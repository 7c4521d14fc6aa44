//! CPU-bound work over a large batch, done on both halves at once.
//!
//! Reading and normalising a batch of 1000 leads takes milliseconds of pure computation; the
//! service's machines have more than one core, so a large batch is split in two and the
//! second half runs on a scoped thread of its own while the caller's thread does the first.

/// Batches at least this large are worked on in two halves.
pub const IN_TWO_FROM: usize = 64;

/// Runs `work(offset, part)` over `items`: in one part when there are fewer than
/// `IN_TWO_FROM`, else over both halves at once. Answers the parts' results in order.
/// A panic in the second half is raised again on the caller's thread.
pub fn in_halves<T, R, F>(items: &[T], work: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    if items.len() < IN_TWO_FROM {
        return vec![work(0, items)];
    }
    let middle = items.len() / 2;
    let (first, second) = items.split_at(middle);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| work(middle, second));
        let done = work(0, first);
        match other.join() {
            Ok(rest) => vec![done, rest],
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_batches_stay_whole() {
        let parts = in_halves(&[1, 2, 3], |offset, part| (offset, part.to_vec()));
        assert_eq!(parts, vec![(0, vec![1, 2, 3])]);
    }

    #[test]
    fn large_batches_keep_their_order_and_offsets() {
        let items: Vec<usize> = (0..101).collect();
        let parts = in_halves(&items, |offset, part| {
            assert_eq!(part[0], offset);
            part.to_vec()
        });
        assert_eq!(parts.len(), 2);
        assert_eq!(parts.concat(), items);
    }

    #[test]
    #[should_panic(expected = "second half")]
    fn a_panic_in_the_second_half_reaches_the_caller() {
        let items: Vec<usize> = (0..100).collect();
        in_halves(&items, |offset, _| {
            assert!(offset == 0, "second half");
        });
    }
}
