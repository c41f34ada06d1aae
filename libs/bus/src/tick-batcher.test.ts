import { TickBatcher } from './tick-batcher.js';

describe('TickBatcher', () => {
  it('hands the items added in one tick to one flush, and later ones to the next', async () => {
    const flushed: number[][] = [];
    const batcher = new TickBatcher<number>(async (items) => void flushed.push(items));
    await Promise.all([batcher.add(1), batcher.add(2), batcher.add(3)]);
    await batcher.add(4);
    expect(flushed).toEqual([[1, 2, 3], [4]]);
  });

  it('rejects every item of a batch that failed, and only those', async () => {
    const batcher = new TickBatcher<string>(async (items) => {
      if (items.includes('poison')) throw new Error('database away');
    });
    const first = [batcher.add('a'), batcher.add('poison')];
    await expect(Promise.allSettled(first)).resolves.toEqual([
      { status: 'rejected', reason: new Error('database away') },
      { status: 'rejected', reason: new Error('database away') },
    ]);
    await expect(batcher.add('b')).resolves.toBeUndefined();
  });
});
