import { cleanFilename } from './artifacts.upload.js';

describe('cleanFilename', () => {
  it('keeps the base name of a path written with either slash', () => {
    expect(cleanFilename('C:\\Users\\me\\photo.png')).toBe('photo.png');
    expect(cleanFilename('../../etc/passwd')).toBe('passwd');
    expect(cleanFilename('notes.txt')).toBe('notes.txt');
  });

  it('drops control characters, caps the length and names a nameless file upload.bin', () => {
    expect(cleanFilename('a\u0000b\r\n.txt')).toBe('ab.txt');
    expect(cleanFilename(`${'x'.repeat(300)}.txt`)).toHaveLength(255);
    for (const empty of [undefined, '', '  ', '..', 'dir/', '\u0007']) expect(cleanFilename(empty)).toBe('upload.bin');
  });
});
