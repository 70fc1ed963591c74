package dev.skipjack.examples.signup;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /signups {"email": ..., "referralCode": ...}}: 201 with the account, 422 for an unknown code. */
@RestController
class SignupController {

    private final SignupService signups;

    SignupController(SignupService signups) {
        this.signups = signups;
    }

    record SignupRequest(String email, String referralCode) {
    }

    @PostMapping("/signups")
    @ResponseStatus(HttpStatus.CREATED)
    SignupService.Signup signUp(@RequestBody SignupRequest request) {
        return signups.signUp(request.email(), request.referralCode());
    }
}
