/**
 * Closes an iterator read by hand (an upstream body, its event batches) once it is no longer
 * read: its `return` runs its clean-up, closing the upstream connection it holds. Never rejects.
 */
export async function closeIterator(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // Its own failure while it closes changes nothing: it is not read any more.
  }
}
