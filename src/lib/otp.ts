import crypto from 'node:crypto';

/**
 * The Zulip apps' one-time pads (Zulip's zerver/lib/mobile_auth_otp.py). The phone app sends
 * `mobile_flow_otp`, 64 hex digits, and gets its API key back XORed with it in a zulip://
 * redirect that other apps on the phone may see. The desktop app sends `desktop_flow_otp`,
 * an AES-256 key, and gets a login token encrypted to it (AES-GCM) through the clipboard.
 */
const API_KEY_LENGTH = 32;

export const isValidOtp = (otp: string): boolean => otp.length === 2 * API_KEY_LENGTH && /^[0-9a-fA-F]+$/.test(otp);

/** Zulip's otp_encrypt_api_key: the key's bytes in hex, XORed digit by digit with the pad. */
export function otpEncryptApiKey(apiKey: string, otp: string): string {
  const hexKey = Buffer.from(apiKey, 'utf8').toString('hex');
  if (hexKey.length !== otp.length) throw new Error('one-time pad and API key lengths differ');
  let out = '';
  for (let i = 0; i < hexKey.length; i++) out += (parseInt(hexKey[i]!, 16) ^ parseInt(otp[i]!, 16)).toString(16);
  return out;
}

/** finish_desktop_flow's desktop_data: hex of a 12-byte IV, the AES-GCM ciphertext and its tag. */
export function desktopEncrypt(token: string, otpHexKey: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', Buffer.from(otpHexKey, 'hex'), iv);
  const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([iv, body]).toString('hex');
}
