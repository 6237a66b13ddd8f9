import { describe, expect, it } from '@jest/globals';
import { classifyPdfOpenError } from '../src/index.js';

function pdfjsError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

describe('classifyPdfOpenError', () => {
  it('tells a missing password from a wrong one', () => {
    const err = pdfjsError('PasswordException', 'No password given');
    expect(classifyPdfOpenError(err, false)).toEqual({ code: 'encrypted_document', message: 'the PDF is password-protected: supply its password' });
    expect(classifyPdfOpenError(err, true)).toEqual({ code: 'encrypted_document', message: 'the PDF password is incorrect' });
  });

  it("calls every structural failure corrupt, with pdfjs's reason", () => {
    for (const name of ['InvalidPDFException', 'FormatError', 'UnknownErrorException']) {
      expect(classifyPdfOpenError(pdfjsError(name, 'Invalid PDF structure.'), false)).toEqual({ code: 'corrupt_document', message: 'not a readable PDF: Invalid PDF structure.' });
    }
  });

  it('leaves anything else to the caller', () => {
    expect(classifyPdfOpenError(new TypeError('a bug of ours'), false)).toBeUndefined();
    expect(classifyPdfOpenError('a string', false)).toBeUndefined();
  });
});
