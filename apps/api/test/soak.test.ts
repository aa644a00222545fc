import t from 'tap';
import { createTestDatabase } from '@nutrition/db/testing';
import { soak } from '../../../bench/soak.ts';

t.test('soak, short form: mixed load with open streams, no errors, every job done, bounded memory', async (t) => {
  const db = await createTestDatabase();
  t.teardown(db.drop);
  const report = await soak(db.url, { seconds: 20, streams: 100, users: 8 });
  t.comment(JSON.stringify({ ...report, errors: report.errors.length }));
  t.same(report.errors, [], 'no request failed');
  t.ok(report.requests > 200, `${report.requests} requests`);
  t.ok(report.streamsOpened >= 50, `${report.streamsOpened} streams were open`);
  t.equal(report.jobsUnfinished, 0, `all ${report.jobsSubmitted} jobs finished`);
  t.equal(report.openStreamsAfter, 0, 'no stream left open');
  t.ok(
    report.apiRssEndMiB - report.apiRssStartMiB < 150,
    `API memory ${report.apiRssStartMiB} -> ${report.apiRssEndMiB} MiB`,
  );
});
