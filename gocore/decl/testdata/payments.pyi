from typing import Any, Literal, NotRequired, TypedDict

class PaymentsPaymentIntentsCreateInputCustomerOption2Address(TypedDict):
    line1: str
    line2: NotRequired[str | None]
    city: NotRequired[str]
    state: NotRequired[str]
    postal_code: NotRequired[str]
    country: str
    """ISO 3166-1 alpha-2."""

class PaymentsPaymentIntentsCreateInputCustomerOption2ShippingAddress(TypedDict):
    line1: str
    line2: NotRequired[str | None]
    city: NotRequired[str]
    state: NotRequired[str]
    postal_code: NotRequired[str]
    country: str
    """ISO 3166-1 alpha-2."""

class PaymentsPaymentIntentsCreateInputCustomerOption2Shipping(TypedDict):
    name: str
    address: PaymentsPaymentIntentsCreateInputCustomerOption2ShippingAddress

class PaymentsPaymentIntentsCreateInputCustomerOption2TaxIdsItem(TypedDict):
    type: Literal["eu_vat", "gb_vat", "us_ein", "ch_vat"]
    value: str

class PaymentsPaymentIntentsCreateInputCustomerOption2(TypedDict):
    name: NotRequired[str]
    email: NotRequired[str]
    """Format: email."""
    phone: NotRequired[str]
    address: NotRequired[PaymentsPaymentIntentsCreateInputCustomerOption2Address]
    shipping: NotRequired[PaymentsPaymentIntentsCreateInputCustomerOption2Shipping]
    tax_ids: NotRequired[list[PaymentsPaymentIntentsCreateInputCustomerOption2TaxIdsItem]]
    metadata: NotRequired[dict[str, str]]
    """Your own key-value pairs, kept with the object."""

class PaymentsPaymentIntentsCreateInputPaymentMethodCardCard(TypedDict):
    number: str
    exp_month: int
    exp_year: int
    cvc: NotRequired[str]

class PaymentsPaymentIntentsCreateInputPaymentMethodCard(TypedDict):
    type: Literal["card"]
    card: PaymentsPaymentIntentsCreateInputPaymentMethodCardCard

class PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebitSepaDebit(TypedDict):
    iban: str

class PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebitMandate(TypedDict):
    accepted_at: NotRequired[str]
    """Format: date-time."""
    ip_address: NotRequired[str]
    """Format: ipv4."""

class PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebit(TypedDict):
    type: Literal["sepa_debit"]
    sepa_debit: PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebitSepaDebit
    mandate: NotRequired[PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebitMandate]

class PaymentsPaymentIntentsCreateInputPaymentMethodBankAccountUsBankA(TypedDict):
    routing_number: str
    account_number: str
    account_holder_type: NotRequired[Literal["individual", "company"]]

class PaymentsPaymentIntentsCreateInputPaymentMethodBankAccount(TypedDict):
    type: Literal["us_bank_account"]
    us_bank_account: PaymentsPaymentIntentsCreateInputPaymentMethodBankAccountUsBankA

class PaymentsPaymentIntentsCreateInputPaymentMethodWallet(TypedDict):
    type: Literal["wallet"]
    wallet: Literal["apple_pay", "google_pay", "paypal"]
    token: str

class PaymentsPaymentIntentsCreateInputTransferData(TypedDict):
    destination: str
    amount: NotRequired[int]
    """Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."""

class PaymentsPaymentIntentsCreateOutputNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsCreateOutputNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsCreateOutputNextActionRedirectToUrl]

class PaymentsPaymentIntentsCreateOutputLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsCreateOutput(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsCreateOutputNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsCreateOutputLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsRetrieveOutputNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsRetrieveOutputNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsRetrieveOutputNextActionRedirectToUrl]

class PaymentsPaymentIntentsRetrieveOutputLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsRetrieveOutput(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsRetrieveOutputNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsRetrieveOutputLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsConfirmInputPaymentMethodCardCard(TypedDict):
    number: str
    exp_month: int
    exp_year: int
    cvc: NotRequired[str]

class PaymentsPaymentIntentsConfirmInputPaymentMethodCard(TypedDict):
    type: Literal["card"]
    card: PaymentsPaymentIntentsConfirmInputPaymentMethodCardCard

class PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebitSepaDebi(TypedDict):
    iban: str

class PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebitMandate(TypedDict):
    accepted_at: NotRequired[str]
    """Format: date-time."""
    ip_address: NotRequired[str]
    """Format: ipv4."""

class PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebit(TypedDict):
    type: Literal["sepa_debit"]
    sepa_debit: PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebitSepaDebi
    mandate: NotRequired[PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebitMandate]

class PaymentsPaymentIntentsConfirmInputPaymentMethodBankAccountUsBank(TypedDict):
    routing_number: str
    account_number: str
    account_holder_type: NotRequired[Literal["individual", "company"]]

class PaymentsPaymentIntentsConfirmInputPaymentMethodBankAccount(TypedDict):
    type: Literal["us_bank_account"]
    us_bank_account: PaymentsPaymentIntentsConfirmInputPaymentMethodBankAccountUsBank

class PaymentsPaymentIntentsConfirmInputPaymentMethodWallet(TypedDict):
    type: Literal["wallet"]
    wallet: Literal["apple_pay", "google_pay", "paypal"]
    token: str

class PaymentsPaymentIntentsConfirmOutputNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsConfirmOutputNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsConfirmOutputNextActionRedirectToUrl]

class PaymentsPaymentIntentsConfirmOutputLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsConfirmOutput(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsConfirmOutputNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsConfirmOutputLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsCaptureOutputNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsCaptureOutputNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsCaptureOutputNextActionRedirectToUrl]

class PaymentsPaymentIntentsCaptureOutputLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsCaptureOutput(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsCaptureOutputNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsCaptureOutputLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsCancelOutputNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsCancelOutputNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsCancelOutputNextActionRedirectToUrl]

class PaymentsPaymentIntentsCancelOutputLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsCancelOutput(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsCancelOutputNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsCancelOutputLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsListInputCreatedOption2(TypedDict):
    gt: NotRequired[int]
    gte: NotRequired[int]
    lt: NotRequired[int]
    lte: NotRequired[int]

class PaymentsPaymentIntentsListOutputDataItemNextActionRedirectToUrl(TypedDict):
    url: NotRequired[str]
    """Format: uri."""
    return_url: NotRequired[str]

class PaymentsPaymentIntentsListOutputDataItemNextAction(TypedDict):
    type: NotRequired[Literal["redirect_to_url", "use_sdk"]]
    redirect_to_url: NotRequired[PaymentsPaymentIntentsListOutputDataItemNextActionRedirectToUrl]

class PaymentsPaymentIntentsListOutputDataItemLastPaymentErrorOption2(TypedDict):
    code: NotRequired[str]
    decline_code: NotRequired[str]
    message: NotRequired[str]

class PaymentsPaymentIntentsListOutputDataItem(TypedDict):
    id: str
    amount: int
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]
    next_action: NotRequired[PaymentsPaymentIntentsListOutputDataItemNextAction | None]
    last_payment_error: NotRequired[PaymentsPaymentIntentsListOutputDataItemLastPaymentErrorOption2 | None]
    created: NotRequired[int]
    """Unix time in seconds."""

class PaymentsPaymentIntentsListOutput(TypedDict):
    data: list[PaymentsPaymentIntentsListOutputDataItem]
    has_more: bool

class PaymentsRefundsCreateOutput(TypedDict):
    id: str
    amount: int
    status: Literal["pending", "requires_action", "succeeded", "failed", "canceled"]

class PaymentsCustomersCreateInputCustomerAddress(TypedDict):
    line1: str
    line2: NotRequired[str | None]
    city: NotRequired[str]
    state: NotRequired[str]
    postal_code: NotRequired[str]
    country: str
    """ISO 3166-1 alpha-2."""

class PaymentsCustomersCreateInputCustomerShippingAddress(TypedDict):
    line1: str
    line2: NotRequired[str | None]
    city: NotRequired[str]
    state: NotRequired[str]
    postal_code: NotRequired[str]
    country: str
    """ISO 3166-1 alpha-2."""

class PaymentsCustomersCreateInputCustomerShipping(TypedDict):
    name: str
    address: PaymentsCustomersCreateInputCustomerShippingAddress

class PaymentsCustomersCreateInputCustomerTaxIdsItem(TypedDict):
    type: Literal["eu_vat", "gb_vat", "us_ein", "ch_vat"]
    value: str

class PaymentsCustomersCreateInputCustomer(TypedDict):
    name: NotRequired[str]
    email: NotRequired[str]
    """Format: email."""
    phone: NotRequired[str]
    address: NotRequired[PaymentsCustomersCreateInputCustomerAddress]
    shipping: NotRequired[PaymentsCustomersCreateInputCustomerShipping]
    tax_ids: NotRequired[list[PaymentsCustomersCreateInputCustomerTaxIdsItem]]
    metadata: NotRequired[dict[str, str]]
    """Your own key-value pairs, kept with the object."""

class PaymentsCustomersCreateInputPaymentMethodCardCard(TypedDict):
    number: str
    exp_month: int
    exp_year: int
    cvc: NotRequired[str]

class PaymentsCustomersCreateInputPaymentMethodCard(TypedDict):
    type: Literal["card"]
    card: PaymentsCustomersCreateInputPaymentMethodCardCard

class PaymentsCustomersCreateInputPaymentMethodSepaDebitSepaDebit(TypedDict):
    iban: str

class PaymentsCustomersCreateInputPaymentMethodSepaDebitMandate(TypedDict):
    accepted_at: NotRequired[str]
    """Format: date-time."""
    ip_address: NotRequired[str]
    """Format: ipv4."""

class PaymentsCustomersCreateInputPaymentMethodSepaDebit(TypedDict):
    type: Literal["sepa_debit"]
    sepa_debit: PaymentsCustomersCreateInputPaymentMethodSepaDebitSepaDebit
    mandate: NotRequired[PaymentsCustomersCreateInputPaymentMethodSepaDebitMandate]

class PaymentsCustomersCreateInputPaymentMethodBankAccountUsBankAccoun(TypedDict):
    routing_number: str
    account_number: str
    account_holder_type: NotRequired[Literal["individual", "company"]]

class PaymentsCustomersCreateInputPaymentMethodBankAccount(TypedDict):
    type: Literal["us_bank_account"]
    us_bank_account: PaymentsCustomersCreateInputPaymentMethodBankAccountUsBankAccoun

class PaymentsCustomersCreateInputPaymentMethodWallet(TypedDict):
    type: Literal["wallet"]
    wallet: Literal["apple_pay", "google_pay", "paypal"]
    token: str

class PaymentsCustomersCreateInputInvoiceSettingsCustomFieldsItem(TypedDict):
    name: str
    value: str

class PaymentsCustomersCreateInputInvoiceSettings(TypedDict):
    default_payment_method: NotRequired[str]
    footer: NotRequired[str]
    custom_fields: NotRequired[list[PaymentsCustomersCreateInputInvoiceSettingsCustomFieldsItem] | None]

class PaymentsCustomersUpdateInputAddressOption1(TypedDict):
    line1: str
    line2: NotRequired[str | None]
    city: NotRequired[str]
    state: NotRequired[str]
    postal_code: NotRequired[str]
    country: str
    """ISO 3166-1 alpha-2."""

class PaymentsCustomersDeleteOutput(TypedDict):
    id: str
    deleted: Literal[True]

class PaymentsSubscriptionsCreateInputItemsItemPriceDataRecurring(TypedDict):
    interval: Literal["day", "week", "month", "year"]
    interval_count: NotRequired[int]
    """Default: 1."""

class PaymentsSubscriptionsCreateInputItemsItemPriceData(TypedDict):
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""
    product: str
    unit_amount: NotRequired[int]
    """Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."""
    recurring: PaymentsSubscriptionsCreateInputItemsItemPriceDataRecurring

class PaymentsSubscriptionsCreateInputItemsItem(TypedDict):
    price: NotRequired[str]
    quantity: NotRequired[int]
    price_data: NotRequired[PaymentsSubscriptionsCreateInputItemsItemPriceData]

class PaymentsSubscriptionsCancelInputCancellationDetails(TypedDict):
    comment: NotRequired[str | None]
    feedback: NotRequired[Literal["customer_service", "low_quality", "missing_features", "other", "switched_service", "too_complex", "too_expensive", "unused"]]

class PaymentsInvoicesCreateInputLinesItemUnitAmount(TypedDict):
    amount: int
    """Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."""
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""

class PaymentsInvoicesCreateInputLinesItemDiscountsItemOption1(TypedDict):
    coupon: str

class PaymentsInvoicesCreateInputLinesItemDiscountsItemOption2(TypedDict):
    percent_off: float

class PaymentsInvoicesCreateInputLinesItem(TypedDict):
    description: NotRequired[str]
    quantity: NotRequired[int]
    """Default: 1."""
    unit_amount: PaymentsInvoicesCreateInputLinesItemUnitAmount
    tax_rates: NotRequired[list[str]]
    discounts: NotRequired[list[PaymentsInvoicesCreateInputLinesItemDiscountsItemOption1 | PaymentsInvoicesCreateInputLinesItemDiscountsItemOption2]]

class PaymentsBalanceRetrieveOutputAvailableItem(TypedDict):
    amount: int
    """Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."""
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""

class PaymentsBalanceRetrieveOutputPendingItem(TypedDict):
    amount: int
    """Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."""
    currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"]
    """Three-letter ISO currency code, in lowercase."""

class PaymentsBalanceRetrieveOutput(TypedDict):
    available: list[PaymentsBalanceRetrieveOutputAvailableItem]
    pending: list[PaymentsBalanceRetrieveOutputPendingItem]

class PaymentsDisputesUpdateInputEvidence(TypedDict):
    customer_email_address: NotRequired[str]
    product_description: NotRequired[str]
    receipt: NotRequired[str]
    """ID of an uploaded file."""
    shipping_tracking_number: NotRequired[str]
    uncategorized_text: NotRequired[str]

class payments:
    class payment_intents:
        @staticmethod
        async def create(
            *,
            amount: int,
            currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"],
            customer: str | PaymentsPaymentIntentsCreateInputCustomerOption2 = ...,
            payment_method: PaymentsPaymentIntentsCreateInputPaymentMethodCard | PaymentsPaymentIntentsCreateInputPaymentMethodSepaDebit | PaymentsPaymentIntentsCreateInputPaymentMethodBankAccount | PaymentsPaymentIntentsCreateInputPaymentMethodWallet = ...,
            capture_method: Literal["automatic", "automatic_async", "manual"] = "automatic",
            confirm: bool = False,
            description: str = ...,
            receipt_email: str = ...,
            statement_descriptor: str = ...,
            application_fee_amount: int = ...,
            transfer_data: PaymentsPaymentIntentsCreateInputTransferData = ...,
            metadata: dict[str, str] = ...,
            idempotency_key: str = ...,
        ) -> PaymentsPaymentIntentsCreateOutput:
            """Create a payment intent: the amount to collect from a customer, and how.

            Args:
                amount: Amount in the currency's smallest unit (cents for USD; 100 = $1.00).
                currency: Three-letter ISO currency code, in lowercase.
                payment_method: How the customer pays.
                capture_method: Default: "automatic".
                confirm: Default: false.
                receipt_email: Format: email.
                metadata: Your own key-value pairs, kept with the object.
                idempotency_key: Retries with the same key create one payment only. Format: uuid.
            """

        @staticmethod
        async def retrieve(*, id: str) -> PaymentsPaymentIntentsRetrieveOutput:
            """Retrieve a payment intent."""

        @staticmethod
        async def confirm(
            *,
            id: str,
            payment_method: PaymentsPaymentIntentsConfirmInputPaymentMethodCard | PaymentsPaymentIntentsConfirmInputPaymentMethodSepaDebit | PaymentsPaymentIntentsConfirmInputPaymentMethodBankAccount | PaymentsPaymentIntentsConfirmInputPaymentMethodWallet = ...,
            return_url: str = ...,
            off_session: bool = ...,
        ) -> PaymentsPaymentIntentsConfirmOutput:
            """Confirm a payment intent, optionally with a new payment method.

            Args:
                payment_method: How the customer pays.
                return_url: Format: uri.
            """

        @staticmethod
        async def capture(
            *,
            id: str,
            amount_to_capture: int = ...,
        ) -> PaymentsPaymentIntentsCaptureOutput:
            """Capture a payment intent created with capture_method manual.

            Args:
                amount_to_capture: Less than the authorized amount releases the rest.
            """

        @staticmethod
        async def cancel(
            *,
            id: str,
            cancellation_reason: Literal["duplicate", "fraudulent", "requested_by_customer", "abandoned"] = ...,
        ) -> PaymentsPaymentIntentsCancelOutput:
            """Cancel a payment intent."""

        @staticmethod
        async def list(
            *,
            customer: str = ...,
            created: int | PaymentsPaymentIntentsListInputCreatedOption2 = ...,
            limit: int = 10,
            starting_after: str = ...,
            ending_before: str = ...,
        ) -> PaymentsPaymentIntentsListOutput:
            """List payment intents, newest first.

            Args:
                limit: Default: 10.
                starting_after: A cursor: the ID of the last object of the previous page.
            """

    class refunds:
        @staticmethod
        async def create(
            *,
            payment_intent: str,
            amount: int = ...,
            reason: Literal["duplicate", "fraudulent", "requested_by_customer"] | None = ...,
            metadata: dict[str, str] = ...,
        ) -> PaymentsRefundsCreateOutput:
            """Refund a payment, fully or in part.

            Args:
                amount: Leave it out to refund everything not yet refunded.
                metadata: Your own key-value pairs, kept with the object.
            """

        @staticmethod
        async def list(
            *,
            payment_intent: str = ...,
            limit: int = 10,
            starting_after: str = ...,
            ending_before: str = ...,
        ) -> Any:
            """List refunds.

            Args:
                limit: Default: 10.
                starting_after: A cursor: the ID of the last object of the previous page.
            """

    class customers:
        @staticmethod
        async def create(
            *,
            customer: PaymentsCustomersCreateInputCustomer,
            payment_method: PaymentsCustomersCreateInputPaymentMethodCard | PaymentsCustomersCreateInputPaymentMethodSepaDebit | PaymentsCustomersCreateInputPaymentMethodBankAccount | PaymentsCustomersCreateInputPaymentMethodWallet = ...,
            invoice_settings: PaymentsCustomersCreateInputInvoiceSettings = ...,
        ) -> Any:
            """Create a customer.

            Args:
                customer: A customer.
                payment_method: How the customer pays.
            """

        @staticmethod
        async def retrieve(
            *,
            id: str,
            expand: list[Literal["default_source", "invoice_settings.default_payment_method", "subscriptions", "tax_ids"]] = ...,
        ) -> Any:
            """Retrieve a customer."""

        @staticmethod
        async def update(
            *,
            id: str,
            name: str | None = ...,
            email: str | None = ...,
            address: PaymentsCustomersUpdateInputAddressOption1 | None = ...,
            metadata: dict[str, str] = ...,
            balance: int = ...,
        ) -> Any:
            """Update a customer; fields left out are unchanged, null clears one.

            Args:
                email: Format: email.
                metadata: Your own key-value pairs, kept with the object.
                balance: Credit (negative) or debt (positive), in the smallest currency unit.
            """

        @staticmethod
        async def delete(*, id: str) -> PaymentsCustomersDeleteOutput:
            """Delete a customer and cancel their subscriptions."""

        @staticmethod
        async def search(*, query: str, limit: int = 10, page: str = ...) -> Any:
            """Search customers with a query such as "email:'a@b.c'".

            Args:
                limit: Default: 10.
            """

    class subscriptions:
        @staticmethod
        async def create(
            *,
            customer: str,
            items: list[PaymentsSubscriptionsCreateInputItemsItem],
            trial_period_days: int = ...,
            collection_method: Literal["charge_automatically", "send_invoice"] = "charge_automatically",
            days_until_due: int = ...,
            cancel_at_period_end: bool = False,
            proration_behavior: Literal["create_prorations", "none", "always_invoice"] = ...,
            metadata: dict[str, str] = ...,
        ) -> Any:
            """Subscribe a customer to prices.

            Args:
                collection_method: Default: "charge_automatically".
                cancel_at_period_end: Default: false.
                metadata: Your own key-value pairs, kept with the object.
            """

        @staticmethod
        async def cancel(
            *,
            id: str,
            at_period_end: bool = False,
            cancellation_details: PaymentsSubscriptionsCancelInputCancellationDetails = ...,
        ) -> Any:
            """Cancel a subscription now, or at the end of its period.

            Args:
                at_period_end: Default: false.
            """

    class invoices:
        @staticmethod
        async def create(
            *,
            customer: str,
            lines: list[PaymentsInvoicesCreateInputLinesItem],
            currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"] = ...,
            due_date: int = ...,
            auto_advance: bool = ...,
            footer: str = ...,
            metadata: dict[str, str] = ...,
        ) -> Any:
            """Create a draft invoice with line items.

            Args:
                currency: Three-letter ISO currency code, in lowercase.
                metadata: Your own key-value pairs, kept with the object.
            """

        @staticmethod
        async def finalize(*, id: str, auto_advance: bool = ...) -> Any:
            """Finalize a draft invoice so it can be paid."""

        @staticmethod
        async def pay(*, id: str, payment_method: str = ..., paid_out_of_band: bool = False) -> Any:
            """Pay an invoice now, off-session.

            Args:
                paid_out_of_band: Default: false.
            """

    class balance:
        @staticmethod
        async def retrieve() -> PaymentsBalanceRetrieveOutput:
            """The account's balance per currency, available and pending."""

    class payouts:
        @staticmethod
        async def create(
            *,
            amount: int,
            currency: Literal["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"],
            method: Literal["standard", "instant"] = "standard",
            destination: str = ...,
            statement_descriptor: str = ...,
        ) -> Any:
            """Send funds to the account's bank account or card.

            Args:
                amount: Amount in the currency's smallest unit (cents for USD; 100 = $1.00).
                currency: Three-letter ISO currency code, in lowercase.
                method: Default: "standard".
            """

    class webhook_endpoints:
        @staticmethod
        async def create(
            *,
            url: str,
            enabled_events: list[str],
            api_version: str = ...,
            description: str | None = ...,
        ) -> Any:
            """Receive events at a URL.

            Args:
                url: Format: uri.
            """

    class disputes:
        @staticmethod
        async def update(
            *,
            id: str,
            evidence: PaymentsDisputesUpdateInputEvidence = ...,
            submit: bool = True,
        ) -> Any:
            """Submit evidence for a dispute.

            Args:
                submit: Default: true.
            """
