import t from 'tap';
import { DEFAULT_JOB_SECONDS, estimatedSeconds } from '../src/queue-wait.ts';

t.test('the wait is the rounds of jobs ahead plus the job itself', async (t) => {
  t.equal(estimatedSeconds(0, 2, 5), 2, 'alone in the queue: one whole job time, idle slots do not split it');
  t.equal(estimatedSeconds(4, 2, 5), 2, 'four ahead on five slots: taken at once');
  t.equal(estimatedSeconds(9, 2, 5), 4, 'ten jobs of 2 s on five slots: two rounds');
  t.equal(estimatedSeconds(9, 2, 1), 20);
  t.equal(estimatedSeconds(43, 1.4, 2), 31, 'position 43 of 1.4 s jobs on two slots: about 30 s, not 1 s');
  t.equal(estimatedSeconds(0, null, 1), DEFAULT_JOB_SECONDS, 'no finished job yet: the default time');
  t.equal(estimatedSeconds(3, 0.01, 5), 1, 'never 0');
  t.equal(estimatedSeconds(4, 1, 0), 5, 'no slots known counts as one');
});
