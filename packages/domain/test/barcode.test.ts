import t from 'tap';
import { gtinCheckDigit, hasValidCheckDigit, normalizeBarcode } from '../src/barcode.ts';

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
  t.equal(normalizeBarcode('1234567890'), null, '10 digits is no GTIN');
  t.equal(normalizeBarcode('14006381333938'), null, 'a GTIN-14 case code is not a retail product');
});
