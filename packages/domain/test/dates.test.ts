import t from 'tap';
import {
  addDays,
  addYears,
  isWeekStart,
  isTimeZone,
  isValidDate,
  startOfDayIn,
  todayIn,
  weekStart,
} from '../src/dates.ts';

t.test('calendar validity', async (t) => {
  t.ok(isValidDate('2024-02-29'));
  t.notOk(isValidDate('2026-02-29'));
  t.notOk(isValidDate('2026-02-30'));
  t.notOk(isValidDate('2026-13-01'));
  t.notOk(isValidDate('26-01-01'));
  t.ok(isValidDate('1900-01-01'));
  t.ok(isValidDate('2100-12-31'));
  t.notOk(isValidDate('1899-12-31'), 'before the range');
  t.notOk(isValidDate('2101-01-01'), 'after the range');
  t.notOk(isValidDate('9999-12-31'));
});

t.test('arithmetic across month and year ends', async (t) => {
  t.equal(addDays('2026-01-31', 1), '2026-02-01');
  t.equal(addDays('2026-12-31', 1), '2027-01-01');
  t.equal(addDays('2026-03-01', -1), '2026-02-28');
  t.equal(addYears('2024-02-29', -10), '2014-02-28');
  t.equal(weekStart('2026-11-22'), '2026-11-16', 'a Sunday belongs to the week that started on Monday');
  t.equal(weekStart('2026-11-16'), '2026-11-16');
  t.ok(isWeekStart('2026-11-16'));
  t.notOk(isWeekStart('2026-11-17'), 'a Tuesday');
  t.ok(isWeekStart('1900-01-01'), 'the first date is a Monday');
  t.ok(isWeekStart('2100-12-20'), 'the last week the service plans');
  t.notOk(isWeekStart('2100-12-27'), 'a Monday whose week runs into 2101');
});

t.test('today and the start of a day in a time zone, around local midnight and clock changes', async (t) => {
  // 09:59 UTC is 23:59 in Kiritimati (UTC+14) and 22:59 the day before in Pago Pago (UTC-11).
  t.equal(todayIn('Pacific/Kiritimati', new Date('2026-11-24T09:59:00Z')), '2026-11-24');
  t.equal(todayIn('Pacific/Kiritimati', new Date('2026-11-24T10:00:00Z')), '2026-11-25', 'midnight in Kiritimati');
  t.equal(todayIn('Pacific/Pago_Pago', new Date('2026-11-24T10:00:00Z')), '2026-11-23');
  t.equal(todayIn('Pacific/Pago_Pago', new Date('2026-11-24T10:59:59Z')), '2026-11-23');
  t.equal(todayIn('Pacific/Pago_Pago', new Date('2026-11-24T11:00:00Z')), '2026-11-24', 'midnight in Pago Pago');
  t.equal(todayIn('UTC', new Date('2026-11-24T23:59:59Z')), '2026-11-24');

  t.equal(startOfDayIn('Pacific/Kiritimati', '2026-11-25').toISOString(), '2026-11-24T10:00:00.000Z');
  t.equal(startOfDayIn('Pacific/Pago_Pago', '2026-11-24').toISOString(), '2026-11-24T11:00:00.000Z');
  t.equal(startOfDayIn('UTC', '2026-11-24').toISOString(), '2026-11-24T00:00:00.000Z');
  // New York leaves summer time at 02:00 on 1 November 2026: that day starts at 04:00 UTC, the next at 05:00.
  t.equal(startOfDayIn('America/New_York', '2026-11-01').toISOString(), '2026-11-01T04:00:00.000Z');
  t.equal(startOfDayIn('America/New_York', '2026-11-02').toISOString(), '2026-11-02T05:00:00.000Z');
  // Santiago skips midnight when summer time starts (6 September 2026): the day begins at 01:00 local.
  t.equal(startOfDayIn('America/Santiago', '2026-09-06').toISOString(), '2026-09-06T04:00:00.000Z');

  t.ok(isTimeZone('Europe/Kyiv'));
  t.ok(isTimeZone('UTC'));
  t.notOk(isTimeZone('Mars/Olympus_Mons'));
  t.notOk(isTimeZone(''));
});
