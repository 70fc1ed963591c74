package dev.skipjack.examples.signup;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** A sign-up named a referral code no account has; the sign-up is rolled back. */
@ResponseStatus(HttpStatus.UNPROCESSABLE_CONTENT)
public class UnknownReferralCodeException extends RuntimeException {

    public UnknownReferralCodeException(String referralCode) {
        super("unknown referral code '" + referralCode + "'");
    }
}
