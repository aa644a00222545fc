import t from 'tap';
import { detectImageType } from '../src/image-type.ts';

t.test('magic bytes decide the type', async (t) => {
  t.equal(detectImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'image/jpeg');
  t.equal(detectImageType(Buffer.from('\x89PNG\r\n\x1a\n....', 'latin1')), 'image/png');
  t.equal(detectImageType(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
  t.equal(detectImageType(Buffer.from('\x00\x00\x00\x18ftypheic\x00\x00\x00\x00', 'latin1')), 'image/heic');
  t.equal(detectImageType(Buffer.from('\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00', 'latin1')), 'image/heic');
  t.equal(
    detectImageType(Buffer.from('\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00', 'latin1')),
    null,
    'an MP4 is not an image',
  );
  t.equal(detectImageType(Buffer.from('GIF89a......')), null);
  t.equal(detectImageType(Buffer.from('%PDF-1.7')), null);
  t.equal(detectImageType(Buffer.alloc(0)), null);
});
