import t from 'tap';
import { DEFAULT_JOB_SECONDS, estimatedSeconds } from '../src/queue-wait.ts';

t.test('the wait covers the jobs ahead and this one, shared among the worker slots', async (t) => {
  t.equal(estimatedSeconds(0, 2, 5), 1, 'alone in the queue: one job time, rounded up');
  t.equal(estimatedSeconds(9, 2, 5), 4, 'ten jobs of 2 s on five slots');
  t.equal(estimatedSeconds(9, 2, 1), 20);
  t.equal(estimatedSeconds(0, null, 1), DEFAULT_JOB_SECONDS, 'no finished job yet: the default time');
  t.equal(estimatedSeconds(3, 0.01, 5), 1, 'never 0');
  t.equal(estimatedSeconds(4, 1, 0), 5, 'no slots configured counts as one');
});
