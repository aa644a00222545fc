import t from 'tap';
import { addDays, addYears, isMonday, isValidDate, weekStart } from '../src/dates.ts';

t.test('calendar validity', async (t) => {
  t.ok(isValidDate('2024-02-29'));
  t.notOk(isValidDate('2026-02-29'));
  t.notOk(isValidDate('2026-02-30'));
  t.notOk(isValidDate('2026-13-01'));
  t.notOk(isValidDate('26-01-01'));
});

t.test('arithmetic across month and year ends', async (t) => {
  t.equal(addDays('2026-01-31', 1), '2026-02-01');
  t.equal(addDays('2026-12-31', 1), '2027-01-01');
  t.equal(addDays('2026-03-01', -1), '2026-02-28');
  t.equal(addYears('2024-02-29', -10), '2014-02-28');
  t.equal(weekStart('2026-11-22'), '2026-11-16', 'a Sunday belongs to the week that started on Monday');
  t.equal(weekStart('2026-11-16'), '2026-11-16');
  t.ok(isMonday('2026-11-16'));
  t.notOk(isMonday('2026-11-17'));
});
