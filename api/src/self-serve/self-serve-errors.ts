import { AppError } from '../../../shared/src/errors/app-error.ts';

/** Errors of sign-up, payments and vouchers (docs/payments.md), in the API's envelope. */
export const selfServeErrors = {
  signUpClosed: () =>
    new AppError(
      403,
      'permission_error',
      'sign_up_closed',
      'Sign-up is by invitation only here (SIGNUP_MODE=invite); ask the operator for an account.',
    ),
  signUpLinkInvalid: () =>
    new AppError(
      400,
      'invalid_request_error',
      'invitation_invalid',
      'This link is unknown, used or expired; sign up again for a new one.',
    ),
  paymentsDisabled: () =>
    new AppError(
      404,
      'invalid_request_error',
      'payments_disabled',
      'Top-ups through a payment gateway are not enabled here; ask the operator to top your wallet up.',
    ),
  amountOutOfRange: (min: number, max: number) =>
    new AppError(
      400,
      'invalid_request_error',
      'amount_out_of_range',
      `The amount must be a whole number of Toman from ${min} to ${max}.`,
    ),
  gatewayRefused: (code: number, message: string) =>
    new AppError(
      502,
      'upstream_error',
      'payment_gateway_error',
      `The payment gateway refused the payment (${code}: ${message}); nothing was charged.`,
    ),
  gatewayUnavailable: () =>
    new AppError(
      503,
      'upstream_error',
      'payment_gateway_unavailable',
      'The payment gateway did not answer; nothing was charged. Try again in a few minutes.',
    ),
  paymentNotFound: (id: string) =>
    new AppError(404, 'invalid_request_error', 'payment_not_found', `There is no payment \`${id}\`.`),
  voucherNotFound: () =>
    new AppError(
      404,
      'invalid_request_error',
      'voucher_not_found',
      'This voucher code is unknown or expired.',
    ),
  voucherUsed: () =>
    new AppError(409, 'invalid_request_error', 'voucher_used', 'This voucher code was already redeemed.'),
} as const;
