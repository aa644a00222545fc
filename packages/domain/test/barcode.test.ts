import t from 'tap';
import {
  gtinCheckDigit,
  hasValidCheckDigit,
  importedBarcode,
  isRestrictedCirculation,
  normalizeBarcode,
} from '../src/barcode.ts';

t.test('check digits', async (t) => {
  t.equal(gtinCheckDigit('400638133393'), 1); // EAN-13 4006381333931
  t.equal(gtinCheckDigit('9638507'), 4); // EAN-8 96385074
  t.equal(gtinCheckDigit('03600029145'), 2); // UPC-A 036000291452
  t.ok(hasValidCheckDigit('4006381333931'));
  t.notOk(hasValidCheckDigit('4006381333932'));
  t.notOk(hasValidCheckDigit('40063813339x1'));
});

t.test('UPC-A, EAN-13 and GTIN-14 of one product normalise alike', async (t) => {
  t.equal(normalizeBarcode('036000291452'), '0036000291452');
  t.equal(normalizeBarcode('0036000291452'), '0036000291452');
  t.equal(normalizeBarcode('00036000291452'), '0036000291452');
  t.equal(normalizeBarcode(' 4006381333931 '), '4006381333931');
  t.equal(normalizeBarcode('96385074'), '96385074', 'EAN-8 stays itself');
  t.equal(normalizeBarcode('4006381333932'), null, 'wrong check digit');
  t.equal(normalizeBarcode('123'), null);
  t.equal(normalizeBarcode('1234567891'), null, '10 digits that are no padded EAN-8 is no GTIN');
  t.equal(normalizeBarcode('14006381333938'), '14006381333938', 'a GTIN-14 case code keeps its indicator');
});

t.test('every zero-padded form of an EAN-8 is the EAN-8', async (t) => {
  for (const form of ['21301964', '0021301964', '000021301964', '0000021301964', '00000021301964'])
    t.equal(normalizeBarcode(form), '21301964', form);
  t.equal(normalizeBarcode('0000021301965'), null, 'the check digit still counts');
});

t.test('a dump code with a wrong check digit is kept as given', async (t) => {
  t.same(importedBarcode('4006381333931'), { barcode: '4006381333931', checked: true });
  t.same(importedBarcode('036000291452'), { barcode: '0036000291452', checked: true });
  t.same(importedBarcode('4006381333932'), { barcode: '4006381333932', checked: false });
  t.equal(importedBarcode('12-34'), null);
  t.equal(importedBarcode('1234567'), null);
});

t.test('in-store label ranges are restricted circulation, manufacturer codes are not', async (t) => {
  for (const code of ['2123456789010', '2912345000004', '0212345678909', '0412345678903', '21301964', '01234565'])
    t.ok(isRestrictedCirculation(normalizeBarcode(code) ?? code), code);
  for (const code of ['4006381333931', '0036000291452', '96385074', '9520000010003', '14006381333938'])
    t.notOk(isRestrictedCirculation(code), code);
});
